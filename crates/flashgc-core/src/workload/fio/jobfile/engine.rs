//! fio's `ioengine` as far as the simulated device sees it: whether the engine keeps
//! more than one request in flight.
//!
//! A synchronous engine (fio's `FIO_SYNCIO` flag: `psync`, fio's default on Linux, and
//! `sync`, `pvsync2`, `mmap`, ...) completes each request inside the call that issues it,
//! so fio caps the queue depth at 1 whatever `iodepth` says (backend.c, `thread_main`:
//! "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be
//! capped at 1"). flashgc does the same and says so in the run's notes. Asynchronous
//! engines (`libaio`, `io_uring`, `posixaio`, `nbd`, ...) keep `iodepth` requests
//! outstanding. The lists are fio 3.33's engines (`engines/*.c`, their `.flags`); an
//! engine loaded from a file (`external:PATH`) is taken as asynchronous.

/// How an engine issues requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// One request at a time (fio's `FIO_SYNCIO`): the queue depth is 1.
    Sync,
    /// Up to `iodepth` requests in flight.
    Async,
}

/// fio's default engine on Linux (`FIO_PREFERRED_ENGINE`, os/os.h).
pub const DEFAULT_ENGINE: &str = "psync";

/// fio 3.33's engines with `FIO_SYNCIO` that do block I/O.
const SYNC: &[&str] = &[
    "sync",
    "psync",
    "vsync",
    "pvsync",
    "pvsync2",
    "mmap",
    "splice",
    "sg",
    "mtd",
    "libzbc",
    "dev-dax",
    "libpmem",
    "pmemblk",
    "gfapi",
    "libiscsi",
    "libhdfs",
    "libcufile",
    "ime_psync",
    "ime_psyncv",
    "e4defrag",
    "falloc",
];

/// fio 3.33's asynchronous engines (`null` is synchronous only at iodepth 1, where the
/// cap changes nothing), and SPDK's plugins.
const ASYNC: &[&str] = &[
    "libaio",
    "io_uring",
    "io_uring_cmd",
    "posixaio",
    "nbd",
    "windowsaio",
    "solarisaio",
    "rbd",
    "rados",
    "nfs",
    "dfs",
    "xnvme",
    "gfapi_async",
    "ime_aio",
    "null",
    "rdma",
    "librpma_apm_client",
    "librpma_gpspm_client",
    "spdk",
    "spdk_bdev",
];

/// fio 3.33's engines that do no block I/O on a device (CPU burners, file-system
/// metadata, network servers).
const NO_BLOCK_IO: &[&str] = &[
    "cpuio",
    "exec",
    "filecreate",
    "filestat",
    "filedelete",
    "ftruncate",
    "net",
    "netsplice",
    "http",
    "librpma_apm_server",
    "librpma_gpspm_server",
];

/// The kind of engine `name` (as a job file gives it), or why it cannot drive the
/// simulated device.
pub fn classify(name: &str) -> std::result::Result<EngineKind, String> {
    let n = name.trim();
    if n.starts_with("external:") {
        return Ok(EngineKind::Async);
    }
    if SYNC.contains(&n) {
        return Ok(EngineKind::Sync);
    }
    if ASYNC.contains(&n) {
        return Ok(EngineKind::Async);
    }
    if NO_BLOCK_IO.contains(&n) {
        return Err(format!(
            "`{n}` does no block I/O on a device, so it cannot drive the simulated SSD"
        ));
    }
    Err(format!(
        "`{n}` is not one of fio 3.33's engines (synchronous: {}; asynchronous: {}; or \
         external:PATH)",
        SYNC.join(", "),
        ASYNC.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_are_classed_as_fio_flags_them() {
        assert_eq!(classify(DEFAULT_ENGINE), Ok(EngineKind::Sync));
        assert_eq!(classify("pvsync2"), Ok(EngineKind::Sync));
        assert_eq!(classify(" libaio "), Ok(EngineKind::Async));
        assert_eq!(classify("io_uring"), Ok(EngineKind::Async));
        assert_eq!(
            classify("external:/opt/spdk/fio_plugin"),
            Ok(EngineKind::Async)
        );
        assert!(classify("cpuio").unwrap_err().contains("no block I/O"));
        let e = classify("libaoi").unwrap_err();
        assert!(e.contains("not one of fio") && e.contains("libaio"), "{e}");
    }
}
