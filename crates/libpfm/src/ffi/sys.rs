//! The C library underneath: `malloc` for what callers `free`, the stdio
//! streams libpfm4 writes its diagnostics to, `FILE *` output for
//! `pfm_pmu_validate`, and the reading of caller memory whose extent we do
//! not know (a string that may lack its NUL, bytes past a structure's
//! known size) without ever faulting: a page is looked at only after the
//! kernel says it can be read.

use crate::abi::{PFM_ERR_INVAL, PFM_ERR_NOMEM};
use std::ffi::{c_char, c_int, c_void};
use std::io;
use std::ptr;
use std::sync::OnceLock;

extern "C" {
    // glibc's (and musl's) standard streams.
    static mut stdout: *mut libc::FILE;
    static mut stderr: *mut libc::FILE;
}

/// Writes one line to the C library's `stdout` (`to_stdout`) or `stderr`
/// and flushes it, as libpfm4's diagnostics do.
pub(crate) fn print_line(to_stdout: bool, line: &str) {
    // SAFETY: `stdout`/`stderr` are the C library's stream pointers,
    // initialised before any code of a program runs; reading them copies a
    // pointer.
    let f = unsafe {
        if to_stdout {
            stdout
        } else {
            stderr
        }
    };
    if f.is_null() {
        return;
    }
    let mut out = CFile(f);
    let _ = io::Write::write_all(&mut out, line.as_bytes());
    let _ = io::Write::write_all(&mut out, b"\n");
    let _ = io::Write::flush(&mut out);
}

/// A C `FILE *` as an [`io::Write`] (for `pfm_pmu_validate`).
pub(crate) struct CFile(pub *mut libc::FILE);

impl io::Write for CFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        // SAFETY: `self.0` is a stream the caller gave us (non-NULL,
        // checked by the caller of `CFile`), `buf` is valid for `buf.len()`
        // bytes.
        let n = unsafe { libc::fwrite(buf.as_ptr().cast(), 1, buf.len(), self.0) };
        if n == 0 {
            return Err(io::Error::other("fwrite failed"));
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        // SAFETY: as in `write`.
        unsafe { libc::fflush(self.0) };
        Ok(())
    }
}

/// `s` in a new `malloc` block with a NUL: the caller owns it (`free`).
pub(crate) fn malloc_cstring(s: &str) -> Result<*mut c_char, c_int> {
    // SAFETY: malloc of a non-zero size; NULL is handled.
    let p = unsafe { libc::malloc(s.len() + 1) }.cast::<u8>();
    if p.is_null() {
        return Err(PFM_ERR_NOMEM);
    }
    // SAFETY: `p` holds `s.len() + 1` bytes; the regions do not overlap.
    unsafe {
        ptr::copy_nonoverlapping(s.as_ptr(), p, s.len());
        p.add(s.len()).write(0);
    }
    Ok(p.cast())
}

/// `codes` in a new `malloc` block: the caller owns it (`free`).
pub(crate) fn malloc_codes(codes: &[u64]) -> Result<*mut u64, c_int> {
    let bytes = std::mem::size_of_val(codes).max(1);
    // SAFETY: malloc of a non-zero size; NULL is handled.
    let p = unsafe { libc::malloc(bytes) }.cast::<u64>();
    if p.is_null() {
        return Err(PFM_ERR_NOMEM);
    }
    // SAFETY: `p` holds `codes.len()` u64s (malloc aligns for any type).
    unsafe { ptr::copy_nonoverlapping(codes.as_ptr(), p, codes.len()) };
    Ok(p)
}

/// Frees a block [`malloc_cstring`] or [`malloc_codes`] returned (an
/// output we could not hand over after all).
pub(crate) fn free<T>(p: *mut T) {
    // SAFETY: `p` is NULL or a block of ours from malloc, not yet handed out.
    unsafe { libc::free(p.cast::<c_void>()) }
}

fn page_size() -> usize {
    static PAGE: OnceLock<usize> = OnceLock::new();
    *PAGE.get_or_init(|| {
        // SAFETY: sysconf has no preconditions.
        let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        usize::try_from(n)
            .ok()
            .filter(|&n| n >= 256)
            .unwrap_or(4096)
    })
}

/// Copies `len` bytes at `addr` of this process into `out`, through the
/// kernel: an unreadable byte makes it fail (`false`) instead of faulting.
/// `process_vm_readv` on ourselves; where a sandbox forbids it, a pipe
/// (`write` fails with `EFAULT` on unreadable memory).
fn copy_checked(addr: usize, out: &mut [u8]) -> bool {
    if out.is_empty() {
        return true;
    }
    let local = libc::iovec {
        iov_base: out.as_mut_ptr().cast(),
        iov_len: out.len(),
    };
    let remote = libc::iovec {
        iov_base: addr as *mut c_void,
        iov_len: out.len(),
    };
    // SAFETY: the local iovec describes `out`; the remote one is only read,
    // by the kernel, which reports unreadable memory as an error.
    let n = unsafe { libc::process_vm_readv(libc::getpid(), &local, 1, &remote, 1, 0) };
    if n >= 0 {
        return n as usize == out.len();
    }
    let errno = io::Error::last_os_error().raw_os_error();
    if errno == Some(libc::EFAULT) {
        return false;
    }
    copy_through_pipe(addr, out)
}

fn copy_through_pipe(addr: usize, out: &mut [u8]) -> bool {
    let mut fds = [0 as c_int; 2];
    // SAFETY: `fds` has room for the two descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return false;
    }
    let mut ok = true;
    for (i, chunk) in out.chunks_mut(4096).enumerate() {
        let at = addr.wrapping_add(i * 4096);
        // SAFETY: the kernel reads `chunk.len()` bytes at `at`, failing
        // with EFAULT where it cannot; 4 KiB fits an empty pipe.
        let w = unsafe { libc::write(fds[1], at as *const c_void, chunk.len()) };
        // SAFETY: reads into `chunk`, which is writable for its length.
        let r = unsafe { libc::read(fds[0], chunk.as_mut_ptr().cast(), chunk.len()) };
        if w != chunk.len() as isize || r != w {
            ok = false;
            break;
        }
    }
    // SAFETY: closing the descriptors we opened.
    unsafe {
        libc::close(fds[0]);
        libc::close(fds[1]);
    }
    ok
}

/// The bytes of a caller's NUL-terminated string, without the NUL:
/// `PFM_ERR_INVAL` for NULL or for a string with no NUL in its first
/// `limit` bytes. The page the string starts in is the caller's to vouch
/// for (it handed us the pointer); before reading into each further page
/// we ask the kernel whether it is readable.
///
/// # Safety
///
/// `p` is NULL or points to readable memory (at least its first byte).
pub(crate) unsafe fn c_string<'a>(p: *const c_char, limit: usize) -> Result<&'a [u8], c_int> {
    if p.is_null() {
        return Err(PFM_ERR_INVAL);
    }
    let start = p as usize;
    let page = page_size();
    let mut at = start;
    loop {
        let page_end = (at / page).saturating_add(1).saturating_mul(page);
        let stop = page_end.min(start.saturating_add(limit));
        if at >= stop {
            return Err(PFM_ERR_INVAL);
        }
        if at != start {
            let mut probe = [0u8; 1];
            if !copy_checked(at, &mut probe) {
                return Err(PFM_ERR_INVAL);
            }
        }
        // SAFETY: `at..stop` lies in one page of which one byte is readable
        // (the caller's first byte, or the probe above): the whole page is.
        let chunk = unsafe { std::slice::from_raw_parts(at as *const u8, stop - at) };
        if let Some(n) = first_nul(chunk) {
            // SAFETY: every byte from `start` to the NUL was just read.
            return Ok(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), at - start + n) });
        }
        at = stop;
    }
}

/// Are the `len` bytes at `addr` all zero? `false` when one is not, or
/// when they cannot all be read (the kernel says so; nothing faults).
pub(crate) fn zero_bytes(addr: usize, len: usize) -> bool {
    let mut buf = vec![0u8; len];
    copy_checked(addr, &mut buf) && buf.iter().all(|&b| b == 0)
}

/// The position of the first NUL of `b`: eight bytes at a time (the lowest
/// byte a word flags is exact: borrows only flag bytes above a true NUL).
fn first_nul(b: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while let Some(c) = b.get(i..i + 8) {
        let w = u64::from_le_bytes(c.try_into().unwrap_or([1; 8]));
        let m = w.wrapping_sub(LO) & !w & HI;
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    b[i..].iter().position(|&x| x == 0).map(|n| i + n)
}

#[cfg(test)]
mod tests {
    use super::first_nul;

    /// As a byte-by-byte search, for a NUL (and bytes next to it that
    /// could upset a word test) at every position of strings of 0 to 20.
    #[test]
    fn first_nul_like_a_byte_search() {
        for len in 0..21 {
            for pos in 0..=len {
                for (before, after) in [(b'a', b'a'), (1, 0x80), (0xff, 1), (0x80, 0)] {
                    let mut b = vec![before; len];
                    if pos < len {
                        b[pos] = 0;
                        if pos + 1 < len {
                            b[pos + 1] = after;
                        }
                    }
                    assert_eq!(first_nul(&b), b.iter().position(|&x| x == 0), "{b:?}");
                }
            }
        }
    }
}
