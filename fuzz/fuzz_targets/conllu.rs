//! libFuzzer target: the CoNLL-U arc reader and its alignment to a text (see factpico_cli::fuzzing).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    factpico_cli::fuzzing::read_conllu(data);
});
