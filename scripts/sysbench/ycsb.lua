-- YCSB's core workloads A and F (Cooper et al., SoCC 2010) on a MySQL-compatible database,
-- as a sysbench 1.0 script, for scripts/record-sysbench-mysql.sh --mode ycsb-a|ycsb-f: the
-- MiDAS paper ran "YCSB-A that runs on MySQL" and YCSB-F (papers/midas.txt, Table 3).
--
-- What YCSB does and this script does alike: one table `usertable` (YCSB_KEY VARCHAR(255)
-- PRIMARY KEY, FIELD0..FIELD9 of 100 bytes: recordcount x 1 KB); keys are the record numbers
-- hashed (YCSB's default insert order is hashed, so the hot records lie scattered over the
-- index; here a multiplicative hash, a bijection on 32 bits, where YCSB uses FNV-64); the
-- records are picked from a scrambled zipfian (YCSB's ZipfianGenerator, Gray et al.'s method,
-- with YCSB's constant 0.99, over the record numbers, whose hashed keys scatter the hot ones;
-- sysbench 1.0 has no zipfian of its own); workload A: 50 % reads of a whole record, 50 %
-- updates of one field; workload F: 50 % reads, 50 % read-modify-writes (the record read,
-- then one field updated). Every operation is its own autocommitted statement, as YCSB's JDBC
-- binding runs them. What differs: YCSB scrambles the zipfian by FNV-hashing the drawn
-- rank, here the key hash does it; the values are sysbench's random letters.

sysbench.cmdline.options = {
   table_size = {"Records (YCSB's recordcount)", 100000},
   tables = {"Tables (YCSB uses one; must be 1)", 1},
   workload = {"a: 50 % reads, 50 % updates; f: 50 % reads, 50 % read-modify-writes", "a"},
   read_proportion = {"Share of reads (YCSB's readproportion)", 0.5},
   field_count = {"Fields per record (YCSB's fieldcount)", 10},
   field_length = {"Bytes per field (YCSB's fieldlength)", 100},
   zipfian_constant = {"Skew of the record popularity (YCSB's zipfian constant)", 0.99},
   mysql_storage_engine = {"Storage engine", "innodb"},
}

local function check_options()
   if sysbench.opt.tables ~= 1 then
      error("--tables must be 1 for YCSB (one usertable), not " .. sysbench.opt.tables)
   end
   if sysbench.opt.workload ~= "a" and sysbench.opt.workload ~= "f" then
      error("--workload must be a or f, not " .. tostring(sysbench.opt.workload))
   end
   if sysbench.opt.table_size < 2 or sysbench.opt.table_size > 4294967295 then
      error("--table-size must be from 2 to 4294967295")
   end
   local theta = sysbench.opt.zipfian_constant
   if not (theta > 0 and theta < 1) then
      error("--zipfian-constant must be above 0 and below 1, not " .. tostring(theta))
   end
end

-- YCSB's ZipfianGenerator over ranks 0..n-1 (Gray et al., "Quickly generating
-- billion-record synthetic databases", SIGMOD 1994).
local zipf

local function zipf_init(n, theta)
   local zetan = 0
   for i = 1, n do
      zetan = zetan + 1 / i ^ theta
   end
   local zeta2 = 1 + 1 / 2 ^ theta
   zipf = {
      n = n,
      theta = theta,
      zetan = zetan,
      alpha = 1 / (1 - theta),
      eta = (1 - (2 / n) ^ (1 - theta)) / (1 - zeta2 / zetan),
      half = 1 + 0.5 ^ theta,
   }
end

local function zipf_next()
   local u = sysbench.rand.uniform_double()
   local uz = u * zipf.zetan
   if uz < 1 then
      return 0
   end
   if uz < zipf.half then
      return 1
   end
   local r = math.floor(zipf.n * (zipf.eta * u - zipf.eta + 1) ^ zipf.alpha)
   return math.min(r, zipf.n - 1)
end

local function key(n)
   -- 2654435761 is odd: n -> n * c mod 2^32 is a bijection (and exact in a double below 2^53).
   return string.format("user%010d", (n * 2654435761) % 4294967296)
end

local pattern

local function value()
   if pattern == nil then
      pattern = string.rep("@", sysbench.opt.field_length)
   end
   return sysbench.rand.string(pattern)
end

function prepare()
   check_options()
   local drv = sysbench.sql.driver()
   local con = drv:connect()
   local cols = {}
   for f = 0, sysbench.opt.field_count - 1 do
      cols[#cols + 1] = string.format("FIELD%d VARCHAR(%d)", f, sysbench.opt.field_length)
   end
   con:query(string.format("CREATE TABLE usertable (YCSB_KEY VARCHAR(255) PRIMARY KEY, %s) ENGINE=%s",
      table.concat(cols, ", "), sysbench.opt.mysql_storage_engine))
   con:bulk_insert_init("INSERT INTO usertable VALUES")
   for n = 1, sysbench.opt.table_size do
      local vals = {}
      for f = 1, sysbench.opt.field_count do
         vals[f] = "'" .. value() .. "'"
      end
      con:bulk_insert_next(string.format("('%s',%s)", key(n), table.concat(vals, ",")))
   end
   con:bulk_insert_done()
   con:disconnect()
end

function cleanup()
   local drv = sysbench.sql.driver()
   local con = drv:connect()
   con:query("DROP TABLE IF EXISTS usertable")
end

function thread_init()
   check_options()
   zipf_init(sysbench.opt.table_size, sysbench.opt.zipfian_constant)
   drv = sysbench.sql.driver()
   con = drv:connect()
end

function thread_done()
   con:disconnect()
end

local function read(k)
   con:query("SELECT * FROM usertable WHERE YCSB_KEY='" .. k .. "'")
end

function event()
   local k = key(zipf_next() + 1)
   if sysbench.rand.uniform_double() < sysbench.opt.read_proportion then
      read(k)
      return
   end
   if sysbench.opt.workload == "f" then
      read(k)
   end
   local f = sysbench.rand.uniform(0, sysbench.opt.field_count - 1)
   con:query(string.format("UPDATE usertable SET FIELD%d='%s' WHERE YCSB_KEY='%s'", f, value(), k))
end
