//! `flashgc serve` test helpers: a server process on a Unix socket in a folder of its
//! own, and a minimal NBD client for hand-made requests (serve_cli.rs).

use serde_json::Value;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_flashgc"))
}

pub fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashgc-serve-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A small device on which GC runs at once: 128 MiB logical, 256 KiB blocks, op 0.07,
/// filled sequentially before serving.
pub const DEVICE: &[&str] = &["--logical-gib", "0.125", "--pages-per-block", "64"];

pub struct Server {
    /// Stopped (or waited for) by the test: not killed on drop.
    pub stopped: bool,
    /// The server process.
    pub child: Child,
    /// Its folder (stdout.txt, stderr.txt, rec.fgt, result.json).
    pub dir: PathBuf,
    /// Its socket.
    pub sock: PathBuf,
}

impl Server {
    pub fn start(d: &Path, extra: &[&str]) -> Server {
        let sock = d.join("s.sock");
        let child = bin()
            .arg("serve")
            .args(DEVICE)
            .arg("--socket")
            .arg(&sock)
            .arg("--record")
            .arg(d.join("rec.fgt"))
            .arg("-o")
            .arg(d.join("result.json"))
            .arg("--quiet")
            .args(extra)
            .stdout(std::fs::File::create(d.join("stdout.txt")).unwrap())
            .stderr(std::fs::File::create(d.join("stderr.txt")).unwrap())
            .spawn()
            .unwrap();
        let t0 = Instant::now();
        while !std::fs::read_to_string(d.join("stderr.txt"))
            .unwrap_or_default()
            .contains("serving")
        {
            assert!(
                t0.elapsed() < Duration::from_secs(30),
                "the server did not start: {}",
                std::fs::read_to_string(d.join("stderr.txt")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Server {
            stopped: false,
            child,
            dir: d.to_path_buf(),
            sock,
        }
    }

    pub fn uri(&self) -> String {
        format!("nbd+unix:///?socket={}", self.sock.display())
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("stderr.txt")).unwrap_or_default()
    }

    /// SIGTERM, wait, and the result JSON.
    pub fn stop(mut self) -> Value {
        self.stopped = true;
        // SAFETY: plain kill(2) on our own child.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let st = self.child.wait().unwrap();
        assert!(st.success(), "server exit {st:?}: {}", self.log());
        let text = std::fs::read_to_string(self.dir.join("result.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // A failed test must not leave its server running.
        if !self.stopped {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

pub fn have_fio_nbd() -> bool {
    Command::new("fio")
        .arg("--enghelp")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("nbd"))
        .unwrap_or(false)
}

pub fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// A minimal NBD client for the bad-client tests.
pub struct Raw {
    /// The socket.
    pub s: UnixStream,
}

impl Raw {
    pub fn connect(sock: &Path) -> Raw {
        let s = UnixStream::connect(sock).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        Raw { s }
    }

    pub fn greeting(&mut self) {
        let mut g = [0u8; 18];
        self.s.read_exact(&mut g).unwrap();
        assert_eq!(&g[0..8], b"NBDMAGIC");
        assert_eq!(&g[8..16], b"IHAVEOPT");
    }

    /// Handshake with NBD_OPT_GO on the default export; returns the export size.
    pub fn go(sock: &Path) -> (Raw, u64) {
        let mut c = Raw::connect(sock);
        c.greeting();
        c.s.write_all(&3u32.to_be_bytes()).unwrap();
        let mut o = Vec::new();
        o.extend_from_slice(b"IHAVEOPT");
        o.extend_from_slice(&7u32.to_be_bytes());
        o.extend_from_slice(&6u32.to_be_bytes());
        o.extend_from_slice(&0u32.to_be_bytes());
        o.extend_from_slice(&0u16.to_be_bytes());
        c.s.write_all(&o).unwrap();
        let mut size = 0;
        loop {
            let mut h = [0u8; 20];
            c.s.read_exact(&mut h).unwrap();
            let kind = u32::from_be_bytes(h[12..16].try_into().unwrap());
            let len = u32::from_be_bytes(h[16..20].try_into().unwrap()) as usize;
            let mut data = vec![0u8; len];
            c.s.read_exact(&mut data).unwrap();
            match kind {
                3 if u16::from_be_bytes([data[0], data[1]]) == 0 => {
                    size = u64::from_be_bytes(data[2..10].try_into().unwrap())
                }
                3 => {}
                1 => break,
                k => panic!("option reply {k:#x}"),
            }
        }
        (c, size)
    }

    pub fn request(&mut self, kind: u16, handle: u64, offset: u64, len: u32, payload: &[u8]) {
        self.request_flags(kind, 0, handle, offset, len, payload)
    }

    /// [`Raw::request`] with command flags (1: FUA).
    pub fn request_flags(
        &mut self,
        kind: u16,
        flags: u16,
        handle: u64,
        offset: u64,
        len: u32,
        payload: &[u8],
    ) {
        let mut b = Vec::with_capacity(28 + payload.len());
        b.extend_from_slice(&0x2560_9513u32.to_be_bytes());
        b.extend_from_slice(&flags.to_be_bytes());
        b.extend_from_slice(&kind.to_be_bytes());
        b.extend_from_slice(&handle.to_be_bytes());
        b.extend_from_slice(&offset.to_be_bytes());
        b.extend_from_slice(&len.to_be_bytes());
        b.extend_from_slice(payload);
        self.s.write_all(&b).unwrap();
    }

    /// (error, handle) of the next simple reply; `data` bytes follow on success.
    pub fn reply(&mut self, data: usize) -> (u32, u64, Vec<u8>) {
        let mut h = [0u8; 16];
        self.s.read_exact(&mut h).unwrap();
        assert_eq!(u32::from_be_bytes(h[0..4].try_into().unwrap()), 0x6744_6698);
        let err = u32::from_be_bytes(h[4..8].try_into().unwrap());
        let handle = u64::from_be_bytes(h[8..16].try_into().unwrap());
        let mut d = vec![0u8; if err == 0 { data } else { 0 }];
        self.s.read_exact(&mut d).unwrap();
        (err, handle, d)
    }
}
