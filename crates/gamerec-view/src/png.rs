//! SVG to PNG through the `resvg` rasteriser (feature `png`).

use std::fmt;
use std::sync::OnceLock;

use resvg::{tiny_skia, usvg};

/// Why an SVG could not be rasterised.
#[derive(Debug)]
pub struct PngError(String);

impl fmt::Display for PngError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot rasterise the SVG: {}", self.0)
    }
}

impl std::error::Error for PngError {}

/// The system's fonts, loaded once (coordinates and labels are text).
fn fonts() -> &'static std::sync::Arc<usvg::fontdb::Database> {
    static FONTS: OnceLock<std::sync::Arc<usvg::fontdb::Database>> = OnceLock::new();
    FONTS.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_system_fonts();
        std::sync::Arc::new(db)
    })
}

/// Renders an SVG document at its own pixel size into PNG bytes.
pub fn svg_to_png(svg: &str) -> Result<Vec<u8>, PngError> {
    let options = usvg::Options {
        fontdb: fonts().clone(),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &options).map_err(|e| PngError(e.to_string()))?;
    let size = tree.size().to_int_size();
    let (w, h) = (size.width(), size.height());
    if w == 0 || h == 0 || u64::from(w) * u64::from(h) > 64 * 1024 * 1024 {
        return Err(PngError(format!("unusable picture size {w}x{h}")));
    }
    let mut pixmap =
        tiny_skia::Pixmap::new(w, h).ok_or_else(|| PngError("cannot allocate".into()))?;
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| PngError(e.to_string()))
}
