//! Opens a `gamerec report` page in headless Chromium and checks that the
//! charts render: the screenshot must contain the series colours of both
//! runs in quantity (lines and bars drawn), not just text.

use std::path::PathBuf;
use std::process::Command;

use flate2::read::ZlibDecoder;
use std::io::Read;

fn tmp(name: &str) -> PathBuf {
    gamerec_testkit::temp_dir("report-chromium").join(name)
}

/// Decodes an 8-bit RGB/RGBA non-interlaced PNG into RGB pixels.
fn decode_png(bytes: &[u8]) -> (usize, usize, Vec<[u8; 3]>) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let mut pos = 8;
    let (mut w, mut h, mut channels) = (0, 0, 0);
    let mut idat = Vec::new();
    while pos + 8 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[pos..pos + 4].try_into().unwrap()) as usize;
        let kind = &bytes[pos + 4..pos + 8];
        let data = &bytes[pos + 8..pos + 8 + len];
        match kind {
            b"IHDR" => {
                w = u32::from_be_bytes(data[0..4].try_into().unwrap()) as usize;
                h = u32::from_be_bytes(data[4..8].try_into().unwrap()) as usize;
                assert_eq!(data[8], 8, "bit depth");
                channels = match data[9] {
                    2 => 3,
                    6 => 4,
                    c => panic!("colour type {c}"),
                };
                assert_eq!(data[12], 0, "interlace");
            }
            b"IDAT" => idat.extend_from_slice(data),
            _ => {}
        }
        pos += 12 + len;
    }
    let mut raw = Vec::new();
    ZlibDecoder::new(&idat[..]).read_to_end(&mut raw).unwrap();
    let stride = w * channels;
    let mut out = vec![0u8; h * stride];
    for y in 0..h {
        let filter = raw[y * (stride + 1)];
        let line = &raw[y * (stride + 1) + 1..(y + 1) * (stride + 1)];
        for x in 0..stride {
            let a = if x >= channels {
                out[y * stride + x - channels]
            } else {
                0
            };
            let b = if y > 0 { out[(y - 1) * stride + x] } else { 0 };
            let c = if x >= channels && y > 0 {
                out[(y - 1) * stride + x - channels]
            } else {
                0
            };
            let v = match filter {
                0 => line[x],
                1 => line[x].wrapping_add(a),
                2 => line[x].wrapping_add(b),
                3 => line[x].wrapping_add(((u16::from(a) + u16::from(b)) / 2) as u8),
                4 => {
                    let p = i16::from(a) + i16::from(b) - i16::from(c);
                    let (pa, pb, pc) = (
                        (p - i16::from(a)).abs(),
                        (p - i16::from(b)).abs(),
                        (p - i16::from(c)).abs(),
                    );
                    let pred = if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    };
                    line[x].wrapping_add(pred)
                }
                f => panic!("filter {f}"),
            };
            out[y * stride + x] = v;
        }
    }
    let pixels = out.chunks(channels).map(|p| [p[0], p[1], p[2]]).collect();
    (w, h, pixels)
}

fn near(p: [u8; 3], q: [u8; 3]) -> bool {
    p.iter().zip(q).all(|(a, b)| a.abs_diff(b) <= 12)
}

#[test]
fn report_charts_render_in_headless_chromium() {
    let Some(chromium) = gamerec_testkit::peer("chromium") else {
        return;
    };
    let line = |id: usize, solved: bool, ms: u64, nodes: u64| {
        format!(
            "6k1/8/8/8/8/8/8/R5K1 w - - bm Ra8+; id \"S.{id}\"; pm {}; acn {nodes}; acms {ms}; solved {}; sltm {ms};",
            if solved { "Ra8+" } else { "Kf2" },
            u8::from(solved)
        )
    };
    let a: Vec<String> = (0..40)
        .map(|i| line(i, i % 3 != 0, 5 + i as u64 * 20, 1000 * (i as u64 + 1)))
        .collect();
    let b: Vec<String> = (0..40)
        .map(|i| line(i, i % 4 != 0, 50 + i as u64 * 10, 5000 * (i as u64 + 1)))
        .collect();
    let (pa, pb) = (tmp("engine-a.epd"), tmp("engine-b.epd"));
    std::fs::write(&pa, a.join("\n")).unwrap();
    std::fs::write(&pb, b.join("\n")).unwrap();
    let html = tmp("report.html");
    let out = Command::new(env!("CARGO_BIN_EXE_gamerec"))
        .args([
            "report",
            pa.to_str().unwrap(),
            pb.to_str().unwrap(),
            "-o",
            html.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    // Kept as a test artefact.
    let shots = gamerec_testkit::repo_root()
        .join("target")
        .join("screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let png = shots.join("report.png");
    let profile = tmp("profile");
    let status = Command::new(chromium)
        .args(gamerec_testkit::CHROMIUM_HEADLESS)
        .args([
            "--hide-scrollbars",
            "--window-size=800,2000",
            &format!("--user-data-dir={}", profile.display()),
            &format!("--screenshot={}", png.display()),
            &format!("file://{}", html.display()),
        ])
        .output()
        .unwrap();
    gamerec_testkit::assert_success(&status, "chromium");
    let (w, h, pixels) = decode_png(&std::fs::read(&png).unwrap());
    assert_eq!((w, h), (800, 2000));
    let blue = pixels
        .iter()
        .filter(|&&p| near(p, [0x1f, 0x77, 0xb4]))
        .count();
    let red = pixels
        .iter()
        .filter(|&&p| near(p, [0xd6, 0x27, 0x28]))
        .count();
    // Curves and histogram bars of both runs: thousands of pixels each.
    assert!(blue > 2000, "first run's series barely drawn: {blue} px");
    assert!(red > 2000, "second run's series barely drawn: {red} px");
}
