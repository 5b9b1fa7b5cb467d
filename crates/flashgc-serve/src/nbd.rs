//! The NBD protocol, server side: the fixed newstyle handshake with option haggling
//! (`NBD_OPT_EXPORT_NAME`, `GO`, `INFO`, `LIST`, `ABORT`; everything else is answered
//! `NBD_REP_ERR_UNSUP`) and the simple-reply transmission phase. Structured replies,
//! metadata contexts and extended headers are not offered, so a client never uses them.
//!
//! Reference: the NBD protocol document (`doc/proto.md` of the NetworkBlockDevice/nbd
//! project). All integers are big-endian on the wire.

use std::io::{self, Read, Write};

/// `NBDMAGIC`: the server's first eight bytes.
pub const NBDMAGIC: u64 = 0x4e42_444d_4147_4943;
/// `IHAVEOPT`: the newstyle magic, and the magic of every option request.
pub const IHAVEOPT: u64 = 0x4948_4156_454F_5054;
/// Magic of every option reply.
pub const OPT_REPLY_MAGIC: u64 = 0x0003_e889_0455_65a9;
/// Magic of a transmission request.
pub const REQUEST_MAGIC: u32 = 0x2560_9513;
/// Magic of a simple reply.
pub const REPLY_MAGIC: u32 = 0x6744_6698;

/// Handshake flag: fixed newstyle.
pub const FLAG_FIXED_NEWSTYLE: u16 = 1;
/// Handshake flag: no 124 zero bytes after `NBD_OPT_EXPORT_NAME`.
pub const FLAG_NO_ZEROES: u16 = 2;
/// Client flag: fixed newstyle.
pub const CLIENT_FIXED_NEWSTYLE: u32 = 1;
/// Client flag: no zeroes.
pub const CLIENT_NO_ZEROES: u32 = 2;

/// Option: enter transmission on the named export (no error possible).
pub const OPT_EXPORT_NAME: u32 = 1;
/// Option: end the session.
pub const OPT_ABORT: u32 = 2;
/// Option: list the exports.
pub const OPT_LIST: u32 = 3;
/// Option: TLS (not offered).
pub const OPT_STARTTLS: u32 = 5;
/// Option: describe an export.
pub const OPT_INFO: u32 = 6;
/// Option: describe an export and enter transmission.
pub const OPT_GO: u32 = 7;

/// Option reply: acknowledged.
pub const REP_ACK: u32 = 1;
/// Option reply: one export of a list.
pub const REP_SERVER: u32 = 2;
/// Option reply: one piece of information about an export.
pub const REP_INFO: u32 = 3;
/// Option reply error: option not supported.
pub const REP_ERR_UNSUP: u32 = (1 << 31) + 1;
/// Option reply error: malformed option.
pub const REP_ERR_INVALID: u32 = (1 << 31) + 3;
/// Option reply error: unknown export.
pub const REP_ERR_UNKNOWN: u32 = (1 << 31) + 6;
/// Option reply error: the server is shutting down.
pub const REP_ERR_SHUTDOWN: u32 = (1 << 31) + 7;

/// Information type: export size and transmission flags.
pub const INFO_EXPORT: u16 = 0;
/// Information type: export name.
pub const INFO_NAME: u16 = 1;
/// Information type: block size constraints.
pub const INFO_BLOCK_SIZE: u16 = 3;

/// Transmission flag: the flags field is valid.
pub const TFLAG_HAS_FLAGS: u16 = 1;
/// Transmission flag: `NBD_CMD_FLUSH` is supported.
pub const TFLAG_SEND_FLUSH: u16 = 4;
/// Transmission flag: `NBD_CMD_FLAG_FUA` is supported.
pub const TFLAG_SEND_FUA: u16 = 8;
/// Transmission flag: `NBD_CMD_TRIM` is supported.
pub const TFLAG_SEND_TRIM: u16 = 32;
/// Transmission flag: `NBD_CMD_WRITE_ZEROES` is supported.
pub const TFLAG_SEND_WRITE_ZEROES: u16 = 64;
/// Transmission flag: several connections see one consistent export (a flush on one
/// covers writes completed on all).
pub const TFLAG_CAN_MULTI_CONN: u16 = 256;

/// The transmission flags flashgc offers.
pub const TRANSMISSION_FLAGS: u16 = TFLAG_HAS_FLAGS
    | TFLAG_SEND_FLUSH
    | TFLAG_SEND_FUA
    | TFLAG_SEND_TRIM
    | TFLAG_SEND_WRITE_ZEROES
    | TFLAG_CAN_MULTI_CONN;

/// Command: read.
pub const CMD_READ: u16 = 0;
/// Command: write (payload follows).
pub const CMD_WRITE: u16 = 1;
/// Command: soft disconnect.
pub const CMD_DISC: u16 = 2;
/// Command: flush.
pub const CMD_FLUSH: u16 = 3;
/// Command: trim (discard).
pub const CMD_TRIM: u16 = 4;
/// Command: write zeroes.
pub const CMD_WRITE_ZEROES: u16 = 6;

/// Command flag: force unit access.
pub const CMD_FLAG_FUA: u16 = 1;
/// Command flag: write zeroes must not punch holes.
pub const CMD_FLAG_NO_HOLE: u16 = 2;

/// Error: operation not permitted.
pub const EPERM: u32 = 1;
/// Error: I/O error.
pub const EIO: u32 = 5;
/// Error: invalid argument (bad flags, out-of-range read, oversized request).
pub const EINVAL: u32 = 22;
/// Error: a write beyond the end of the export.
pub const ENOSPC: u32 = 28;
/// Error: command not supported.
pub const ENOTSUP: u32 = 95;
/// Error: the server is shutting down.
pub const ESHUTDOWN: u32 = 108;

/// Largest request payload the server accepts (the 32 MiB every NBD client assumes
/// without block-size negotiation, advertised as the maximum block size).
pub const MAX_REQUEST: u32 = 32 << 20;
/// Largest option payload read during the handshake (names are at most 4 KiB).
pub const MAX_OPTION: u32 = 64 << 10;

/// What the server exports.
#[derive(Debug, Clone)]
pub struct Export {
    /// Export name (the empty name is accepted as the default export too).
    pub name: String,
    /// Size in bytes.
    pub size: u64,
    /// Preferred block size (the LPN size).
    pub preferred_block: u32,
}

/// A handshake that did not reach transmission.
#[derive(Debug)]
pub enum HandshakeEnd {
    /// The client sent `NBD_OPT_ABORT` (or closed the connection before any option).
    Aborted,
    /// A protocol violation: the reason, for the log; the client is dropped.
    Violation(String),
    /// The connection failed.
    Io(io::Error),
}

impl From<io::Error> for HandshakeEnd {
    fn from(e: io::Error) -> Self {
        HandshakeEnd::Io(e)
    }
}

fn read_u32(r: &mut impl Read) -> io::Result<u32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_be_bytes(b))
}
fn read_u64(r: &mut impl Read) -> io::Result<u64> {
    let mut b = [0u8; 8];
    r.read_exact(&mut b)?;
    Ok(u64::from_be_bytes(b))
}

fn opt_reply(w: &mut impl Write, opt: u32, kind: u32, data: &[u8]) -> io::Result<()> {
    let mut m = Vec::with_capacity(20 + data.len());
    m.extend_from_slice(&OPT_REPLY_MAGIC.to_be_bytes());
    m.extend_from_slice(&opt.to_be_bytes());
    m.extend_from_slice(&kind.to_be_bytes());
    m.extend_from_slice(&(data.len() as u32).to_be_bytes());
    m.extend_from_slice(data);
    w.write_all(&m)
}

fn opt_error(w: &mut impl Write, opt: u32, kind: u32, why: &str) -> io::Result<()> {
    opt_reply(w, opt, kind, why.as_bytes())?;
    w.flush()
}

/// Runs the server side of the fixed newstyle handshake on `s`. Returns when the client
/// enters transmission (`Ok(())`), aborts, or violates the protocol. `shutting_down` makes
/// every option that would start transmission fail with `NBD_REP_ERR_SHUTDOWN`.
pub fn handshake<S: Read + Write>(
    s: &mut S,
    export: &Export,
    shutting_down: &dyn Fn() -> bool,
) -> Result<(), HandshakeEnd> {
    let mut hello = [0u8; 18];
    hello[0..8].copy_from_slice(&NBDMAGIC.to_be_bytes());
    hello[8..16].copy_from_slice(&IHAVEOPT.to_be_bytes());
    hello[16..18].copy_from_slice(&(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES).to_be_bytes());
    s.write_all(&hello)?;
    s.flush()?;
    let cflags = match read_u32(s) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Err(HandshakeEnd::Aborted),
        Err(e) => return Err(e.into()),
    };
    if cflags & !(CLIENT_FIXED_NEWSTYLE | CLIENT_NO_ZEROES) != 0 {
        return Err(HandshakeEnd::Violation(format!(
            "malformed handshake: unknown client flags {cflags:#x}"
        )));
    }
    if cflags & CLIENT_FIXED_NEWSTYLE == 0 {
        return Err(HandshakeEnd::Violation(
            "the client does not speak the fixed newstyle handshake (old or plain newstyle clients are not supported)".into(),
        ));
    }
    let no_zeroes = cflags & CLIENT_NO_ZEROES != 0;
    loop {
        let magic = read_u64(s)?;
        if magic != IHAVEOPT {
            return Err(HandshakeEnd::Violation(format!(
                "malformed handshake: option magic {magic:#018x}, expected IHAVEOPT"
            )));
        }
        let opt = read_u32(s)?;
        let len = read_u32(s)?;
        if len > MAX_OPTION {
            return Err(HandshakeEnd::Violation(format!(
                "malformed handshake: option {opt} of {len} bytes (at most {MAX_OPTION})"
            )));
        }
        let mut data = vec![0u8; len as usize];
        s.read_exact(&mut data)?;
        match opt {
            OPT_EXPORT_NAME => {
                let name = String::from_utf8_lossy(&data);
                if !known(export, &name) {
                    // This option cannot answer an error: drop the client.
                    return Err(HandshakeEnd::Violation(format!(
                        "NBD_OPT_EXPORT_NAME `{name}`: no such export (this server exports `{}` and the default name)",
                        export.name
                    )));
                }
                if shutting_down() {
                    return Err(HandshakeEnd::Violation(
                        "the server is shutting down".into(),
                    ));
                }
                let mut m = Vec::with_capacity(134);
                m.extend_from_slice(&export.size.to_be_bytes());
                m.extend_from_slice(&TRANSMISSION_FLAGS.to_be_bytes());
                if !no_zeroes {
                    m.extend_from_slice(&[0u8; 124]);
                }
                s.write_all(&m)?;
                s.flush()?;
                return Ok(());
            }
            OPT_ABORT => {
                // The reply is optional; the client may already have closed.
                let _ = opt_reply(s, opt, REP_ACK, &[]).and_then(|_| s.flush());
                return Err(HandshakeEnd::Aborted);
            }
            OPT_LIST => {
                if !data.is_empty() {
                    opt_error(s, opt, REP_ERR_INVALID, "NBD_OPT_LIST takes no data")?;
                    continue;
                }
                let mut d = Vec::new();
                d.extend_from_slice(&(export.name.len() as u32).to_be_bytes());
                d.extend_from_slice(export.name.as_bytes());
                opt_reply(s, opt, REP_SERVER, &d)?;
                opt_reply(s, opt, REP_ACK, &[])?;
                s.flush()?;
            }
            OPT_INFO | OPT_GO => {
                let Some((name, infos)) = parse_info_request(&data) else {
                    opt_error(s, opt, REP_ERR_INVALID, "malformed NBD_OPT_INFO/GO data")?;
                    continue;
                };
                if !known(export, &name) {
                    opt_error(
                        s,
                        opt,
                        REP_ERR_UNKNOWN,
                        &format!("no export `{name}`; this server exports `{}`", export.name),
                    )?;
                    continue;
                }
                if opt == OPT_GO && shutting_down() {
                    opt_error(s, opt, REP_ERR_SHUTDOWN, "the server is shutting down")?;
                    continue;
                }
                let mut d = Vec::with_capacity(12);
                d.extend_from_slice(&INFO_EXPORT.to_be_bytes());
                d.extend_from_slice(&export.size.to_be_bytes());
                d.extend_from_slice(&TRANSMISSION_FLAGS.to_be_bytes());
                opt_reply(s, opt, REP_INFO, &d)?;
                if infos.contains(&INFO_NAME) {
                    let mut d = INFO_NAME.to_be_bytes().to_vec();
                    d.extend_from_slice(export.name.as_bytes());
                    opt_reply(s, opt, REP_INFO, &d)?;
                }
                if infos.contains(&INFO_BLOCK_SIZE) {
                    // Any byte granularity works (partial pages are read-modify-written);
                    // the LPN size is what the simulated device prefers.
                    let mut d = INFO_BLOCK_SIZE.to_be_bytes().to_vec();
                    d.extend_from_slice(&1u32.to_be_bytes());
                    d.extend_from_slice(&export.preferred_block.to_be_bytes());
                    d.extend_from_slice(&MAX_REQUEST.to_be_bytes());
                    opt_reply(s, opt, REP_INFO, &d)?;
                }
                opt_reply(s, opt, REP_ACK, &[])?;
                s.flush()?;
                if opt == OPT_GO {
                    return Ok(());
                }
            }
            OPT_STARTTLS => opt_error(s, opt, REP_ERR_UNSUP, "TLS is not offered")?,
            _ => opt_error(
                s,
                opt,
                REP_ERR_UNSUP,
                &format!("option {opt} is not supported"),
            )?,
        }
    }
}

fn known(export: &Export, name: &str) -> bool {
    name.is_empty() || name == export.name
}

/// Parses `NBD_OPT_INFO`/`GO` data: u32 name length, name, u16 count, count x u16.
fn parse_info_request(d: &[u8]) -> Option<(String, Vec<u16>)> {
    let nl = u32::from_be_bytes(d.get(0..4)?.try_into().ok()?) as usize;
    let name = String::from_utf8_lossy(d.get(4..4 + nl)?).into_owned();
    let rest = d.get(4 + nl..)?;
    let n = u16::from_be_bytes(rest.get(0..2)?.try_into().ok()?) as usize;
    let items = rest.get(2..)?;
    if items.len() != 2 * n {
        return None;
    }
    Some((
        name,
        items
            .chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect(),
    ))
}

/// A transmission-phase request header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestHeader {
    /// Command flags.
    pub flags: u16,
    /// Command type.
    pub kind: u16,
    /// The client's handle, echoed in the reply.
    pub handle: u64,
    /// Byte offset.
    pub offset: u64,
    /// Byte length.
    pub len: u32,
}

/// Size of a request header on the wire.
pub const REQUEST_BYTES: usize = 28;

impl RequestHeader {
    /// Decodes a header; None when the magic is wrong (the stream cannot be resynchronised).
    pub fn decode(b: &[u8; REQUEST_BYTES]) -> Option<RequestHeader> {
        let magic = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        if magic != REQUEST_MAGIC {
            return None;
        }
        Some(RequestHeader {
            flags: u16::from_be_bytes([b[4], b[5]]),
            kind: u16::from_be_bytes([b[6], b[7]]),
            handle: u64::from_be_bytes(b[8..16].try_into().ok()?),
            offset: u64::from_be_bytes(b[16..24].try_into().ok()?),
            len: u32::from_be_bytes(b[24..28].try_into().ok()?),
        })
    }

    /// Encodes a header (clients, tests).
    pub fn encode(&self) -> [u8; REQUEST_BYTES] {
        let mut b = [0u8; REQUEST_BYTES];
        b[0..4].copy_from_slice(&REQUEST_MAGIC.to_be_bytes());
        b[4..6].copy_from_slice(&self.flags.to_be_bytes());
        b[6..8].copy_from_slice(&self.kind.to_be_bytes());
        b[8..16].copy_from_slice(&self.handle.to_be_bytes());
        b[16..24].copy_from_slice(&self.offset.to_be_bytes());
        b[24..28].copy_from_slice(&self.len.to_be_bytes());
        b
    }
}

/// A simple reply header: magic, error, handle.
pub fn reply_header(error: u32, handle: u64) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[0..4].copy_from_slice(&REPLY_MAGIC.to_be_bytes());
    b[4..8].copy_from_slice(&error.to_be_bytes());
    b[8..16].copy_from_slice(&handle.to_be_bytes());
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_request_parses_and_rejects_bad_lengths() {
        let mut d = Vec::new();
        d.extend_from_slice(&3u32.to_be_bytes());
        d.extend_from_slice(b"abc");
        d.extend_from_slice(&2u16.to_be_bytes());
        d.extend_from_slice(&INFO_NAME.to_be_bytes());
        d.extend_from_slice(&INFO_BLOCK_SIZE.to_be_bytes());
        assert_eq!(
            parse_info_request(&d),
            Some(("abc".to_string(), vec![INFO_NAME, INFO_BLOCK_SIZE]))
        );
        assert_eq!(parse_info_request(&d[..d.len() - 1]), None);
        let mut bad = d.clone();
        bad[3] = 200;
        assert_eq!(parse_info_request(&bad), None);
    }

    #[test]
    fn request_header_round_trip() {
        let h = RequestHeader {
            flags: CMD_FLAG_FUA,
            kind: CMD_WRITE,
            handle: 0x0102_0304_0506_0708,
            offset: 1 << 40,
            len: 4096,
        };
        assert_eq!(RequestHeader::decode(&h.encode()), Some(h));
        let mut b = h.encode();
        b[0] ^= 1;
        assert_eq!(RequestHeader::decode(&b), None);
    }
}
