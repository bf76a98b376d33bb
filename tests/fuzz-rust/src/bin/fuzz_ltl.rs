//! libFuzzer entry point for [`vigil_fuzz::ltl`].
#![no_main]

#[no_mangle]
pub extern "C" fn LLVMFuzzerTestOneInput(data: *const u8, size: usize) -> i32 {
    let bytes = if size == 0 {
        &[][..]
    } else {
        // SAFETY: libFuzzer passes a valid buffer of `size` bytes.
        unsafe { std::slice::from_raw_parts(data, size) }
    };
    vigil_fuzz::ltl(bytes);
    0
}
