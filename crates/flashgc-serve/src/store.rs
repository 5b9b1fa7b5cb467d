//! Where the served bytes live (`--data none|memory|file:PATH`). The simulator models
//! where pages are on flash, not their bytes; the store keeps the bytes so that a file
//! system or fio's verification works on top.
//!
//! * `none`: writes are dropped, reads return zeros (benchmark tools that never read back).
//! * `memory`: one anonymous, lazily backed mapping of the export's size (`MAP_NORESERVE`):
//!   the kernel allocates a 4 KiB page on its first write, so memory grows with the data
//!   written, not the export size; TRIM and WRITE_ZEROES of whole pages give them back.
//! * `file:PATH`: a regular file of the export's size read and written with
//!   `pread`/`pwrite` (sparse where the file system allows; FLUSH and FUA call `fdatasync`).

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::RwLock;

/// The `--data` choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DataMode {
    /// Drop writes, read zeros.
    None,
    /// Keep the bytes in memory.
    Memory,
    /// Keep the bytes in a file.
    File(PathBuf),
}

impl DataMode {
    /// Parses `none`, `memory` or `file:PATH`.
    pub fn parse(s: &str) -> Result<DataMode, String> {
        match s.trim() {
            "none" => Ok(DataMode::None),
            "memory" | "mem" => Ok(DataMode::Memory),
            t => match t.strip_prefix("file:") {
                Some(p) if !p.is_empty() => Ok(DataMode::File(PathBuf::from(p))),
                _ => Err(format!("--data `{s}`: allowed none, memory, file:PATH")),
            },
        }
    }

    /// Whether reads return what was written.
    pub fn keeps_data(&self) -> bool {
        !matches!(self, DataMode::None)
    }
}

/// An anonymous mapping; writes take the lock exclusively, reads share it (so a read never
/// sees half of a concurrent write from another connection).
struct Mapping {
    ptr: *mut u8,
    len: usize,
    lock: RwLock<()>,
}

// SAFETY: the mapping is owned by this struct and every access goes through `lock`.
unsafe impl Send for Mapping {}
// SAFETY: as above: shared access is synchronised by `lock`.
unsafe impl Sync for Mapping {}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: ptr/len describe the mapping created in `Store::open`, unmapped once.
        unsafe {
            libc::munmap(self.ptr as *mut libc::c_void, self.len);
        }
    }
}

/// The data store behind an export.
pub enum Store {
    /// Nothing kept.
    None,
    /// Anonymous memory.
    Memory(MappingBox),
    /// A file.
    File(File),
}

/// Opaque holder of the memory mapping.
pub struct MappingBox(Mapping);

const OS_PAGE: u64 = 4096;

impl Store {
    /// Opens a store of `size` bytes.
    pub fn open(mode: &DataMode, size: u64) -> Result<Store, String> {
        match mode {
            DataMode::None => Ok(Store::None),
            DataMode::Memory => {
                let len = usize::try_from(size).map_err(|_| {
                    format!("--data memory: {size} bytes do not fit the address space")
                })?;
                // SAFETY: a fresh private anonymous mapping; checked for MAP_FAILED below.
                let ptr = unsafe {
                    libc::mmap(
                        std::ptr::null_mut(),
                        len.max(1),
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                        -1,
                        0,
                    )
                };
                if ptr == libc::MAP_FAILED {
                    return Err(format!(
                        "--data memory: cannot map {size} bytes: {}",
                        io::Error::last_os_error()
                    ));
                }
                Ok(Store::Memory(MappingBox(Mapping {
                    ptr: ptr as *mut u8,
                    len: len.max(1),
                    lock: RwLock::new(()),
                })))
            }
            DataMode::File(p) => {
                let f = OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .open(p)
                    .map_err(|e| format!("--data file:{}: {e}", p.display()))?;
                let have = f
                    .metadata()
                    .map_err(|e| format!("--data file:{}: {e}", p.display()))?
                    .len();
                if have < size {
                    f.set_len(size).map_err(|e| {
                        format!(
                            "--data file:{}: cannot size to {size} bytes: {e}",
                            p.display()
                        )
                    })?;
                }
                Ok(Store::File(f))
            }
        }
    }

    /// Writes `data` at `off` (in range: checked by the caller).
    pub fn write(&self, off: u64, data: &[u8]) -> io::Result<()> {
        match self {
            Store::None => Ok(()),
            Store::Memory(MappingBox(m)) => {
                let _g = m.lock.write().unwrap_or_else(|e| e.into_inner());
                check(m, off, data.len())?;
                // SAFETY: off + len is inside the mapping (checked); the write lock excludes
                // every other access.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        data.as_ptr(),
                        m.ptr.add(off as usize),
                        data.len(),
                    )
                };
                Ok(())
            }
            Store::File(f) => f.write_all_at(data, off),
        }
    }

    /// Reads `buf.len()` bytes at `off` into `buf`.
    pub fn read(&self, off: u64, buf: &mut [u8]) -> io::Result<()> {
        match self {
            Store::None => {
                buf.fill(0);
                Ok(())
            }
            Store::Memory(MappingBox(m)) => {
                let _g = m.lock.read().unwrap_or_else(|e| e.into_inner());
                check(m, off, buf.len())?;
                // SAFETY: in range (checked); writers are excluded by the read lock.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        m.ptr.add(off as usize),
                        buf.as_mut_ptr(),
                        buf.len(),
                    )
                };
                Ok(())
            }
            Store::File(f) => read_full_at(f, buf, off),
        }
    }

    /// Sets `len` bytes at `off` to zero, giving whole OS pages back where the store can.
    pub fn zero(&self, off: u64, len: u64) -> io::Result<()> {
        match self {
            Store::None => Ok(()),
            Store::Memory(MappingBox(m)) => {
                let _g = m.lock.write().unwrap_or_else(|e| e.into_inner());
                check(m, off, len as usize)?;
                let end = off + len;
                let a = off.div_ceil(OS_PAGE) * OS_PAGE;
                let b = end / OS_PAGE * OS_PAGE;
                // SAFETY: all ranges are inside the mapping (checked above); write lock held.
                unsafe {
                    if a < b {
                        std::ptr::write_bytes(m.ptr.add(off as usize), 0, (a - off) as usize);
                        std::ptr::write_bytes(m.ptr.add(b as usize), 0, (end - b) as usize);
                        // A private anonymous mapping reads zeros after MADV_DONTNEED.
                        if libc::madvise(
                            m.ptr.add(a as usize) as *mut libc::c_void,
                            (b - a) as usize,
                            libc::MADV_DONTNEED,
                        ) != 0
                        {
                            std::ptr::write_bytes(m.ptr.add(a as usize), 0, (b - a) as usize);
                        }
                    } else {
                        std::ptr::write_bytes(m.ptr.add(off as usize), 0, len as usize);
                    }
                }
                Ok(())
            }
            Store::File(f) => {
                use std::os::fd::AsRawFd;
                // SAFETY: plain fallocate on an open descriptor.
                let r = unsafe {
                    libc::fallocate(
                        f.as_raw_fd(),
                        libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                        off as libc::off_t,
                        len as libc::off_t,
                    )
                };
                if r == 0 {
                    return Ok(());
                }
                // No hole punching on this file system: write zeros.
                let z = vec![0u8; (len.min(1 << 20)) as usize];
                let mut o = off;
                while o < off + len {
                    let k = (off + len - o).min(z.len() as u64) as usize;
                    f.write_all_at(&z[..k], o)?;
                    o += k as u64;
                }
                Ok(())
            }
        }
    }

    /// Makes acknowledged writes durable (files: `fdatasync`).
    pub fn flush(&self) -> io::Result<()> {
        match self {
            Store::File(f) => f.sync_data(),
            _ => Ok(()),
        }
    }
}

fn check(m: &Mapping, off: u64, len: usize) -> io::Result<()> {
    if off.checked_add(len as u64).is_none_or(|e| e > m.len as u64) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "access beyond the store",
        ));
    }
    Ok(())
}

/// `pread` until `buf` is full; bytes past the end of the file read as zeros.
fn read_full_at(f: &File, buf: &mut [u8], off: u64) -> io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        match f.read_at(&mut buf[done..], off + done as u64) {
            Ok(0) => {
                buf[done..].fill(0);
                return Ok(());
            }
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(s: &Store) {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7) as u8).collect();
        s.write(5000, &data).unwrap();
        let mut b = vec![1u8; 10_000];
        s.read(5000, &mut b).unwrap();
        assert_eq!(b, data);
        s.zero(6000, 8192 + 100).unwrap();
        s.read(5000, &mut b).unwrap();
        assert_eq!(&b[..1000], &data[..1000]);
        assert!(b[1000..1000 + 8292].iter().all(|&x| x == 0));
        assert_eq!(&b[9292..], &data[9292..]);
    }

    #[test]
    fn memory_store_round_trip_and_zero() {
        let s = Store::open(&DataMode::Memory, 1 << 20).unwrap();
        round_trip(&s);
        assert!(s.write((1 << 20) - 10, &[0u8; 11]).is_err());
    }

    #[test]
    fn file_store_round_trip_and_zero() {
        let p = std::env::temp_dir().join(format!("flashgc-store-{}", std::process::id()));
        let s = Store::open(&DataMode::File(p.clone()), 1 << 20).unwrap();
        round_trip(&s);
        s.flush().unwrap();
        drop(s);
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 1 << 20);
        std::fs::remove_file(&p).ok();
    }

    #[test]
    fn none_store_reads_zeros() {
        let s = Store::open(&DataMode::None, 1 << 20).unwrap();
        s.write(0, &[9u8; 100]).unwrap();
        let mut b = [7u8; 100];
        s.read(0, &mut b).unwrap();
        assert!(b.iter().all(|&x| x == 0));
    }
}
