//! The merging mode: objects merge key-wise wherever they meet, `required` being the keys all
//! of them had, arrays element-wise; the result does not depend on the order of the samples.

use orkestrel_core::infer::{
    decode, encode, read_bytes, value_to_schema, Accumulator, Lines, Options, Parsed, Tape,
};

fn merging() -> Options {
    Options {
        merge: true,
        ..Options::default()
    }
}

fn schema_of(opts: Options, texts: &[&str]) -> String {
    let mut acc = Accumulator::new(opts);
    let mut tape = Tape::default();
    for text in texts {
        tape.parse(text.as_bytes()).unwrap();
        acc.add(Parsed::root(&tape, text.as_bytes()));
    }
    acc.schema().unwrap().to_text()
}

#[test]
fn objects_in_an_array_merge_into_one_with_the_keys_all_of_them_had_required() {
    let got = schema_of(
        merging(),
        &[r#"[{"a": 1, "b": "x"}, {"a": 2.5}, {"a": 3, "c": null}]"#],
    );
    assert_eq!(
        got,
        r#"{"type":"array","items":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"string"},"c":{"type":"null"}},"required":["a"],"additionalProperties":false}}"#
    );
    // The reference's mode keeps one variant per shape.
    let reference = schema_of(
        Options::default(),
        &[r#"[{"a": 1, "b": "x"}, {"a": 2.5}, {"a": 3, "c": null}]"#],
    );
    assert!(reference.contains("anyOf"), "{reference}");
}

#[test]
fn objects_beside_other_kinds_merge_into_one_variant() {
    let got = schema_of(
        merging(),
        &[
            r#"{"x": [1, {"p": 1}, "s", {"q": [true]}]}"#,
            "[]",
            r#"{"y": 1}"#,
        ],
    );
    assert_eq!(
        got,
        r#"{"anyOf":[{"type":"object","properties":{"x":{"type":"array","items":{"anyOf":[{"type":"object","properties":{"p":{"type":"integer"},"q":{"type":"array","items":{"type":"boolean"}}},"additionalProperties":false},{"type":"integer"},{"type":"string"}]}},"y":{"type":"integer"}},"additionalProperties":false},{"type":"array"}]}"#
    );
}

#[test]
fn nested_arrays_merge_element_wise() {
    let got = schema_of(
        merging(),
        &[r#"[[{"a": 1}], [{"b": 2}, {"a": 3, "b": 4}], []]"#],
    );
    assert_eq!(
        got,
        r#"{"type":"array","items":{"type":"array","items":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"additionalProperties":false}}}"#
    );
}

#[test]
fn every_order_of_the_samples_gives_the_same_schema() {
    let texts = [
        r#"{"a": 1, "n": {"x": [1, 2]}}"#,
        r#"{"a": "s", "n": {"y": null}, "list": [{"k": 1}]}"#,
        r#"[{"k": 2, "j": [{"z": 1}]}, 3]"#,
        r#"{"n": [{"x": 1}], "list": []}"#,
        "null",
    ];
    let want = schema_of(merging(), &texts);
    let mut order: Vec<usize> = (0..texts.len()).collect();
    // Every permutation (Heap's algorithm, iteratively).
    let mut c = vec![0; order.len()];
    let mut i = 0;
    while i < order.len() {
        if c[i] < i {
            let j = if i % 2 == 0 { 0 } else { c[i] };
            order.swap(j, i);
            let permuted: Vec<&str> = order.iter().map(|&k| texts[k]).collect();
            assert_eq!(schema_of(merging(), &permuted), want, "{permuted:?}");
            c[i] += 1;
            i = 0;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
}

#[test]
fn the_mode_survives_serialising_and_must_match_to_merge() {
    let mut acc = Accumulator::new(merging());
    let mut tape = Tape::default();
    let text = r#"[{"a": 1}, {"b": 2}]"#;
    tape.parse(text.as_bytes()).unwrap();
    acc.add(Parsed::root(&tape, text.as_bytes()));
    let back = decode(&encode(&acc)).unwrap();
    assert!(back.options().merge);
    assert_eq!(
        back.schema().unwrap().to_text(),
        acc.schema().unwrap().to_text()
    );
    assert!(back
        .clone()
        .merge(&Accumulator::new(Options::default()))
        .is_err());
}

#[test]
fn json_lines_on_any_thread_count_give_the_single_pass_schema() {
    let mut data = Vec::new();
    let mut texts = Vec::new();
    for i in 0..3000 {
        let text = match i % 4 {
            0 => format!(r#"{{"id": {i}, "tags": [{{"k": "a"}}, {{"v": {i}}}]}}"#),
            1 => format!(r#"{{"id": "{i}", "more": {{"deep": [{i}, {{"w": null}}]}}}}"#),
            2 => format!(r#"{{"id": {i}.5, "tags": []}}"#),
            _ => format!(r#"[{{"id": {i}}}]"#),
        };
        data.extend_from_slice(text.as_bytes());
        data.push(b'\n');
        texts.push(text);
    }
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let want = schema_of(merging(), &refs);
    for threads in [1, 2, 3, 8] {
        let lines = Lines {
            threads,
            ..Lines::new(merging())
        };
        let (acc, _) = read_bytes(lines, &data, &mut |_| true).unwrap();
        assert_eq!(acc.schema().unwrap().to_text(), want, "threads {threads}");
    }
}

#[test]
fn one_value_gives_the_schema_of_that_one_sample() {
    let text = r#"{"rows": [{"a": 1}, {"a": 2, "b": "x"}]}"#;
    let mut tape = Tape::default();
    tape.parse(text.as_bytes()).unwrap();
    let one = value_to_schema(Parsed::root(&tape, text.as_bytes()), merging())
        .unwrap()
        .to_text();
    assert_eq!(one, schema_of(merging(), &[text]));
    assert!(one.contains(r#""required":["a"]"#), "{one}");
}
