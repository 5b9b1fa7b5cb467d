//! Memory helpers for the simulator's large tables, below every module that has one (the
//! FTL's mapping, the content store, MiDAS's tables): huge-page-backed allocation and
//! software prefetch.

/// Prefetch hint for the cache line holding `p` (a no-op off x86-64).
#[inline(always)]
pub(crate) fn prefetch_ptr(p: *const i8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetch is a hint; it never faults, whatever the address.
    unsafe {
        core::arch::x86_64::_mm_prefetch(p, core::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// A vector for a large table that is accessed at random: on Linux its memory is marked for
/// transparent huge pages before it is first touched, which removes most TLB misses of
/// random L2P/P2L accesses on large devices (the kernel may ignore the hint).
pub(crate) fn big_vec<T: Copy>(n: usize, value: T) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(n);
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let bytes = n * std::mem::size_of::<T>();
        if bytes >= 4 * HUGE {
            let start = v.as_mut_ptr() as usize;
            let aligned = start.next_multiple_of(HUGE);
            let end = (start + bytes) & !(HUGE - 1);
            if end > aligned {
                // SAFETY: the range lies inside this vector's own (not yet touched)
                // allocation; MADV_HUGEPAGE only changes how the kernel backs it.
                unsafe {
                    libc::madvise(
                        aligned as *mut libc::c_void,
                        end - aligned,
                        libc::MADV_HUGEPAGE,
                    );
                }
            }
        }
    }
    v.resize(n, value);
    v
}

/// A vector of `n` copies of `value`, or None when the system will not allocate it: for
/// tables sized by user input, where a failed infallible allocation aborts the process
/// ("memory allocation of N bytes failed") instead of reporting an error.
pub(crate) fn try_vec<T: Clone>(n: u64, value: T) -> Option<Vec<T>> {
    let n = usize::try_from(n).ok()?;
    let mut v: Vec<T> = Vec::new();
    v.try_reserve_exact(n).ok()?;
    v.resize(n, value);
    Some(v)
}

/// Whether the system would allocate `bytes` now: reserved and released without being
/// touched (no page is faulted in). For tables built by code that allocates infallibly
/// (MiDAS's UID counts), checked just before they are built.
pub(crate) fn can_allocate(bytes: u64) -> bool {
    let Ok(n) = usize::try_from(bytes) else {
        return false;
    };
    Vec::<u8>::new().try_reserve_exact(n).is_ok()
}
