//! A small reader for the SVG the library writes: elements with their
//! attributes, in document order.

#![allow(dead_code)]
use std::collections::BTreeMap;

/// One start tag: its name, attributes, and the text right after it.
#[derive(Debug, Clone)]
pub struct Element {
    pub name: String,
    pub attrs: BTreeMap<String, String>,
    pub text: String,
}

impl Element {
    pub fn attr(&self, name: &str) -> &str {
        self.attrs.get(name).map(String::as_str).unwrap_or("")
    }

    pub fn classes(&self) -> Vec<&str> {
        self.attr("class").split_whitespace().collect()
    }

    pub fn has_class(&self, class: &str) -> bool {
        self.classes().contains(&class)
    }

    pub fn f(&self, name: &str) -> f64 {
        self.attr(name)
            .parse()
            .unwrap_or_else(|_| panic!("{name} of {self:?}"))
    }
}

/// Every start tag of `svg`, checking that tags nest properly.
pub fn elements(svg: &str) -> Vec<Element> {
    let mut out = Vec::new();
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find('<') {
        rest = &rest[start + 1..];
        let end = rest.find('>').expect("unclosed tag");
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name.trim()), "tag nesting");
            continue;
        }
        let self_closing = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let (name, mut attrs_text) = tag.split_once(' ').unwrap_or((tag, ""));
        let mut attrs = BTreeMap::new();
        loop {
            attrs_text = attrs_text.trim_start();
            let Some(eq) = attrs_text.find("=\"") else {
                break;
            };
            let key = attrs_text[..eq].to_owned();
            let after = &attrs_text[eq + 2..];
            let close = after.find('"').expect("unclosed attribute");
            assert!(
                attrs
                    .insert(key.clone(), after[..close].to_owned())
                    .is_none(),
                "duplicate attribute {key}"
            );
            attrs_text = &after[close + 1..];
        }
        let text = rest[..rest.find('<').unwrap_or(rest.len())].to_owned();
        if !self_closing {
            stack.push(name.to_owned());
        }
        out.push(Element {
            name: name.to_owned(),
            attrs,
            text,
        });
    }
    assert!(stack.is_empty(), "unclosed elements {stack:?}");
    out
}

/// The elements with a class.
pub fn with_class<'a>(els: &'a [Element], class: &str) -> Vec<&'a Element> {
    els.iter().filter(|e| e.has_class(class)).collect()
}
