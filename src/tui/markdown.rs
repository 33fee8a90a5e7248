//! TEMPORARY STUB — replaced by the theme branch's markdown module.
use super::theme::Theme;
use ratatui::text::Line;
pub enum Segment {
    Answer,
    Reasoning,
}
#[derive(Default)]
pub struct StreamDoc {
    text: String,
    lines: Vec<Line<'static>>,
}
impl StreamDoc {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn push(&mut self, _segment: Segment, text: &str) {
        self.text.push_str(text);
    }
    pub fn push_notice(&mut self, text: &str) {
        self.text.push_str(&format!("\n── {text} ──\n"));
    }
    pub fn clear(&mut self) {
        self.text.clear();
    }
    pub fn layout(&mut self, width: u16, _theme: &Theme) {
        let width = usize::from(width.max(1));
        self.lines = self
            .text
            .lines()
            .flat_map(|l| {
                let c: Vec<char> = l.chars().collect();
                if c.is_empty() {
                    vec![String::new()]
                } else {
                    c.chunks(width).map(|x| x.iter().collect()).collect()
                }
            })
            .map(Line::from)
            .collect();
    }
    pub fn line_count(&self) -> usize {
        self.lines.len()
    }
    pub fn lines(&self, start: usize, count: usize) -> Vec<Line<'_>> {
        self.lines.iter().skip(start).take(count).cloned().collect()
    }
    pub fn source_len(&self) -> usize {
        self.text.len()
    }
}
