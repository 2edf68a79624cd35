use gamerec::sgf::*;
#[test]
fn smoke() {
    let src = b"junk (;FF[4]GM[1]SZ[19]C[hi \\] there\\\\ :x];B[pd];W[dd](;B[pp]LB[aa:x\\:y])(;B[dp];W[tt]))";
    let p = parse(src, &ParseOptions::default());
    for d in &p.diagnostics { eprintln!("{}", d.to_diagnostic(Some("x"))); }
    let s = write_to_string(&p.collection, &WriteOptions::default());
    eprintln!("{s}");
    let q = parse(s.as_bytes(), &ParseOptions::default());
    assert!(p.collection == q.collection);
    eprintln!("{}", gamerec::sgf::json::to_json(&p.collection));
}
