//! libFuzzer target: the JSON-arcs / CoreNLP JSON reader and its alignment to a text (see factpico_cli::fuzzing).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    factpico_cli::fuzzing::read_json_arcs(data);
});
