//! Writing an animation's frames to a GIF file: each frame's RGB pixels reduced to a
//! palette of at most 256 colours of its own, then LZW-compressed by the `gif` crate.
//!
//! The palette is chosen by popularity: a frame with at most 256 colours (a line drawing
//! without much anti-aliasing) keeps every colour exactly; otherwise the 256 most frequent
//! colours are kept, and each other colour is drawn as the nearest of them (in RGB). For
//! the figures of this module (a white background, a few solid colours, anti-aliased
//! edges and text) that keeps every solid colour exact and moves only edge pixels, and it
//! costs a fraction of a general colour quantizer (plotters' own GIF output runs NeuQuant
//! on every frame, which was most of the time of a short animation).

use super::cannot_write;
use std::collections::HashMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// A GIF being written, frame by frame; the buffers are reused from frame to frame.
pub(super) struct GifFile {
    encoder: gif::Encoder<BufWriter<File>>,
    /// Where it is written, for errors.
    path: PathBuf,
    size: (u16, u16),
    /// The delay after each frame, in hundredths of a second.
    delay: u16,
    /// Pixels per colour of the frame, then the palette index of each colour.
    colours: HashMap<[u8; 3], u32>,
    palette: Vec<[u8; 3]>,
    indices: Vec<u8>,
}

impl GifFile {
    /// Creates the file at `path`, `size` pixels, looping forever, `delay` hundredths of a
    /// second per frame.
    pub(super) fn create(path: &Path, size: (u16, u16), delay: u16) -> Result<Self, String> {
        let failed = |e: &dyn std::fmt::Display| cannot_write(path, e);
        let file = File::create(path).map_err(|e| failed(&e))?;
        let mut encoder =
            gif::Encoder::new(BufWriter::new(file), size.0, size.1, &[]).map_err(|e| failed(&e))?;
        encoder
            .set_repeat(gif::Repeat::Infinite)
            .map_err(|e| failed(&e))?;
        Ok(GifFile {
            encoder,
            path: path.to_path_buf(),
            size,
            delay,
            colours: HashMap::new(),
            palette: Vec::with_capacity(256),
            indices: Vec::new(),
        })
    }

    /// Appends one frame, `rgb` holding its pixels row by row, three bytes each.
    pub(super) fn push(&mut self, rgb: &[u8]) -> Result<(), String> {
        debug_assert_eq!(
            rgb.len(),
            3 * usize::from(self.size.0) * usize::from(self.size.1)
        );
        self.choose_palette(rgb);
        self.index(rgb);
        let frame = gif::Frame {
            width: self.size.0,
            height: self.size.1,
            delay: self.delay,
            buffer: std::borrow::Cow::Borrowed(&self.indices),
            palette: Some(self.palette.concat()),
            ..gif::Frame::default()
        };
        self.encoder
            .write_frame(&frame)
            .map_err(|e| cannot_write(&self.path, &e))
    }

    /// Counts the frame's colours and keeps the (at most) 256 most frequent as its
    /// palette; afterwards `colours` maps each colour to its palette index.
    fn choose_palette(&mut self, rgb: &[u8]) {
        self.colours.clear();
        // Runs of one colour (most of a figure) are counted at once.
        let mut pixels = rgb.chunks_exact(3).map(|p| [p[0], p[1], p[2]]);
        if let Some(mut run) = pixels.next() {
            let mut length = 1;
            for p in pixels {
                if p == run {
                    length += 1;
                } else {
                    *self.colours.entry(run).or_insert(0) += length;
                    (run, length) = (p, 1);
                }
            }
            *self.colours.entry(run).or_insert(0) += length;
        }
        let mut by_count: Vec<([u8; 3], u32)> =
            self.colours.iter().map(|(c, n)| (*c, *n)).collect();
        // Most frequent first; equal counts by colour, so that the file does not depend on
        // the map's order.
        by_count.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        by_count.truncate(256);
        self.palette.clear();
        self.palette.extend(by_count.iter().map(|(c, _)| *c));
        let palette = &self.palette;
        for (colour, index) in &mut self.colours {
            *index = nearest(palette, *colour);
        }
    }

    /// Writes each pixel's palette index into `indices`.
    fn index(&mut self, rgb: &[u8]) {
        self.indices.clear();
        let mut last: Option<([u8; 3], u8)> = None;
        for p in rgb.chunks_exact(3) {
            let colour = [p[0], p[1], p[2]];
            let index = match last {
                Some((c, i)) if c == colour => i,
                _ => {
                    // Every colour of the frame was counted, so it has an index below 256.
                    let i = self.colours.get(&colour).map_or(0, |&i| i as u8);
                    last = Some((colour, i));
                    i
                }
            };
            self.indices.push(index);
        }
    }
}

/// The index of the colour of `palette` nearest to `colour` (squared RGB distance; the
/// first of equals), 0 for an empty palette.
fn nearest(palette: &[[u8; 3]], colour: [u8; 3]) -> u32 {
    let distance = |p: &[u8; 3]| -> u32 {
        (0..3)
            .map(|k| {
                let d = i32::from(p[k]) - i32::from(colour[k]);
                (d * d) as u32
            })
            .sum()
    };
    let mut best = (u32::MAX, 0);
    for (i, p) in palette.iter().enumerate() {
        let d = distance(p);
        if d < best.0 {
            best = (d, i as u32);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_colour_is_exact_when_present_and_closest_otherwise() {
        let palette = [[255, 255, 255], [0, 0, 0], [31, 119, 180]];
        assert_eq!(nearest(&palette, [31, 119, 180]), 2);
        assert_eq!(nearest(&palette, [30, 118, 181]), 2);
        assert_eq!(nearest(&palette, [250, 250, 250]), 0);
        assert_eq!(nearest(&palette, [10, 10, 10]), 1);
    }

    /// A frame of 300 colours: the 256 most frequent are kept exactly, the others drawn
    /// as their nearest; a frame of few colours keeps them all. Read back with `gif`.
    #[test]
    fn frames_keep_frequent_colours_exactly() {
        let dir = std::env::temp_dir().join(format!("lagrange-gif-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("palette.gif");
        let (w, h) = (40u16, 30u16);
        // Colour k (k < 300) is (k mod 256, k / 256 · 100, 7); colours below 256 fill
        // four pixels each, those from 256 one each, and the last 132 pixels are white.
        let mut rgb = Vec::new();
        for k in 0..300u32 {
            let count = if k < 256 { 4 } else { 1 };
            for _ in 0..count {
                rgb.extend_from_slice(&[(k % 256) as u8, (k / 256 * 100) as u8, 7]);
            }
        }
        rgb.resize(3 * usize::from(w) * usize::from(h), 255);
        let mut file = GifFile::create(&path, (w, h), 4).unwrap();
        file.push(&rgb).unwrap();
        let mut few = vec![255u8; rgb.len()];
        few[..6].copy_from_slice(&[214, 39, 40, 214, 39, 40]);
        file.push(&few).unwrap();
        drop(file);

        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::RGBA);
        let mut decoder = options.read_info(File::open(&path).unwrap()).unwrap();
        let first = decoder.read_next_frame().unwrap().unwrap().clone();
        let second = decoder.read_next_frame().unwrap().unwrap().clone();
        assert!(decoder.read_next_frame().unwrap().is_none());
        assert_eq!((first.width, first.height, first.delay), (w, h, 4));
        let at =
            |f: &gif::Frame, i: usize| [f.buffer[4 * i], f.buffer[4 * i + 1], f.buffer[4 * i + 2]];
        // Kept: white (132 pixels), then 255 of the 256 colours of four pixels, equal
        // counts taken by colour, so (0, 0, 7) … (254, 0, 7); (255, 0, 7) is drawn as its
        // nearest, (254, 0, 7).
        for k in 0..255usize {
            assert_eq!(at(&first, 4 * k), [k as u8, 0, 7]);
        }
        assert_eq!(at(&first, 4 * 255), [254, 0, 7]);
        assert_eq!(at(&first, 1199), [255, 255, 255]);
        // Colour 256 + j is (j, 100, 7), one pixel: drawn as (j, 0, 7).
        assert_eq!(at(&first, 4 * 256), [0, 0, 7]);
        assert_eq!(at(&first, 4 * 256 + 43), [43, 0, 7]);
        assert_eq!(at(&second, 0), [214, 39, 40]);
        assert_eq!(at(&second, 1), [214, 39, 40]);
        assert_eq!(at(&second, 2), [255, 255, 255]);
        std::fs::remove_dir_all(&dir).ok();
    }
}
