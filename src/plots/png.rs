//! PNG pictures: plotters draws into an RGB buffer and the `png` crate encodes it, with the settings
//! plotters' image encoder used before (fast deflate, adaptive filtering starting from Sub), so the files
//! are the same bytes without the `image` crate and its decoders in the build. The file is written all or
//! nothing, like every other output.

use crate::err;
use crate::error::Fallible;
use crate::record::write_atomic;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// Draw a `size` picture with `draw` and write it to `path` as an 8-bit RGB PNG.
pub(crate) fn write_png<F>(path: &Path, size: (u32, u32), draw: F) -> Fallible<()>
where
    F: FnOnce(DrawingArea<BitMapBackend, Shift>) -> Fallible<()>,
{
    let (w, h) = size;
    let mut buf = vec![0u8; w as usize * h as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut buf, size).into_drawing_area();
        draw(root).map_err(|e| e.context(format!("drawing {}", path.display())))?;
    }
    write_atomic(path, &encode(&buf, size).map_err(|e| err!(Io, "writing {}: {e}", path.display()))?)
}

/// The PNG file of an RGB buffer.
fn encode(rgb: &[u8], (w, h): (u32, u32)) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        enc.set_filter(png::FilterType::Sub);
        enc.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
        enc.write_header()?.write_image_data(rgb)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A picture drawn by plotters comes back pixel for pixel from the file (decoded by the `png` crate).
    #[test]
    fn a_drawn_picture_decodes_to_its_pixels() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.png");
        write_png(&path, (7, 5), |root| {
            root.fill(&WHITE).map_err(|e| err!(Io, "{e}"))?;
            root.draw_pixel((2, 3), &RGBColor(10, 20, 30)).map_err(|e| err!(Io, "{e}"))?;
            Ok(())
        })
        .unwrap();
        let dec = png::Decoder::new(std::fs::File::open(&path).unwrap());
        let mut reader = dec.read_info().unwrap();
        let mut px = vec![0u8; reader.output_buffer_size()];
        let info = reader.next_frame(&mut px).unwrap();
        assert_eq!((info.width, info.height, info.color_type), (7, 5, png::ColorType::Rgb));
        let at = |x: usize, y: usize| &px[(y * 7 + x) * 3..(y * 7 + x) * 3 + 3];
        assert_eq!(at(2, 3), [10, 20, 30]);
        assert_eq!(at(0, 0), [255, 255, 255]);
        assert_eq!(at(6, 4), [255, 255, 255]);
    }
}
