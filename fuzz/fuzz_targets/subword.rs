#![no_main]
// The harness lives in the library (glimpse::fuzzing) so stable tests replay the corpus too.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = glimpse::fuzzing::subword(data);
});
