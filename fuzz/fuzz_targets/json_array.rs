//! libFuzzer target: the json_array input reader of `factpico score` (see factpico_cli::fuzzing).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    factpico_cli::fuzzing::read_input(factpico_cli::input::Format::Json, data);
});
