//! JSON front end: JSON is read by the YAML front end (JSON is YAML 1.2 flow
//! syntax), so CloudFormation templates and app configs share one tree shape.

use super::FileFacts;

pub fn parse(text: &str, facts: &mut FileFacts) {
    // NOTE: YAML refuses tabs where JSON allows them as white space. A tab
    // can only stand outside strings in valid JSON, and a space has the same
    // length, so every span stays exact.
    let owned;
    let text_for_parser = if text.contains('\t') {
        owned = text.replace('\t', " ");
        owned.as_str()
    } else {
        text
    };
    let doc = super::yaml::build(text_for_parser, facts);
    super::yaml::push_strings(text, &doc, facts);
    facts.conf = Some(doc);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tab_indented_json_parses_with_exact_spans() {
        let text = "{\n\t\"headers\": {\"Idempotency-Key\": \"x\"}\n}\n";
        let mut facts = FileFacts::default();
        parse(text, &mut facts);
        assert!(facts.problems.is_empty(), "{:?}", facts.problems);
        let s = facts
            .strings
            .iter()
            .find(|s| s.value == "Idempotency-Key")
            .unwrap();
        assert_eq!(&text[s.span.start..s.span.end], "Idempotency-Key");
    }
}
