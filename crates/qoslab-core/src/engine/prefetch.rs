//! A request to bring one cache line into the first-level cache ahead of its use, which the
//! processor serves while it goes on (x86 `PREFETCHT0`, Intel SDM vol. 2B). It changes no
//! value and cannot fault; on other processors it is a no-op.

/// Requests the cache line holding `value`.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    safe_arch::prefetch_t0(value);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
