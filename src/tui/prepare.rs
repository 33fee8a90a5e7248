//! Before a frame is drawn: the screen laid out for the terminal's size and
//! every text it shows brought up to date, so that drawing (`view`) is a
//! read of finished layouts.
//!
//! This is where the state meets the view's measures: how many rows the
//! selected item, the item pop-up or the verdict's parts take is a
//! question of the text the view draws, so this step sits above `view`
//! and below `screen`, which runs it before each frame; the state
//! (`app`) imports neither.

use ratatui::layout::Rect;

use super::app::{App, Damage, Layer, Scroll};
use super::layout::{self, Region};
use super::markdown::StreamDoc;
use super::theme::Theme;
use super::view;

impl App {
    /// Lays the screen out for `area` and brings every visible text cache up
    /// to date, so that drawing is a read of finished layouts.
    pub fn prepare(&mut self, area: Rect) {
        // The regions change only when what they are laid out for does;
        // most frames only stream text.
        let input = (self.layout_input(), area);
        let relaid = self.layout_for.as_ref() != Some(&input);
        if relaid {
            self.layout = layout::compute(&input.0, area);
            self.layout_for = Some(input);
        }
        self.look_up_item_target();
        // Text streamed into some panes, on the last frame's layout, changes
        // those panes alone: the other panes and regions stand as last
        // prepared and are not touched (a frame finds them out of cache).
        // (The damage is set aside meanwhile, not copied: nothing here marks
        // any.)
        let damage = std::mem::take(&mut self.damage);
        let streamed_into = match (&damage, relaid) {
            (Damage::Streamed { panes, .. }, false) => Some(panes.as_slice()),
            _ => None,
        };
        let theme = &self.theme;
        for &(region, rect) in &self.layout.regions {
            let inner = layout::inner(rect);
            let prepared = match region {
                Region::Pane(index) => streamed_into
                    .as_ref()
                    .is_none_or(|panes| panes.contains(&index)),
                _ => streamed_into.is_none(),
            };
            if !prepared {
                continue;
            }
            match region {
                Region::Items => {
                    let areas = layout::items_areas(&self.items_shape(), rect);
                    if let (Some(target), Some(rect)) = (&mut self.item_target, areas.target) {
                        target.doc.layout(layout::target_areas(rect).1.width, theme);
                    }
                    self.item_page = 0;
                    if let Some(preview) = areas.item {
                        let rows = view::item_in_full_rows(self, preview.width);
                        let height = usize::from(preview.height);
                        self.item_page = height;
                        self.item_scroll = self.item_scroll.min(rows.saturating_sub(height));
                    }
                }
                Region::Pane(index) => {
                    let pane = &mut self.panes[index];
                    if let Some(human) = &mut pane.human {
                        human.prompt.layout(inner.width, theme);
                        let has_error = human.error.is_some();
                        let areas = layout::human_areas(inner, has_error);
                        human.prompt_viewport = usize::from(areas.prompt.height);
                    }
                    pane.viewport = usize::from(inner.height);
                    let doc = if pane.raw {
                        &mut pane.doc
                    } else {
                        pane.cards.doc_mut()
                    };
                    lay_out_from_end(doc, &mut pane.scroll, (inner.width, pane.viewport), theme);
                    pane.follow_the_stream(inner.width);
                    let (scroll, viewport) = (pane.scroll, pane.viewport);
                    let doc = pane.shown_mut();
                    let first = scroll.first_line(doc.line_count(), viewport);
                    doc.keep_rows_near(first, viewport, theme);
                }
                Region::Transcript => {
                    self.transcript_viewport = usize::from(inner.height);
                    lay_out_from_end(
                        &mut self.transcript,
                        &mut self.transcript_scroll,
                        (inner.width, self.transcript_viewport),
                        theme,
                    );
                }
                Region::Verdict => {
                    // Pages turn by the rows the deliverable is shown in,
                    // not the whole view's.
                    if let Some(report) = &mut self.report {
                        report.summary.layout(inner.width.saturating_sub(1), theme);
                    }
                    let summary = self
                        .report
                        .as_ref()
                        .map(|report| view::verdict_areas(self, report, inner).summary);
                    if let (Some(report), Some(summary)) = (&mut self.report, summary) {
                        report.viewport = usize::from(summary.height);
                    }
                }
                Region::Board => {}
            }
        }
        self.damage = damage;
        if let Some(Layer::ItemDetail { item, .. }) = self.layers.last() {
            let (_, text, _) = layout::item_detail_areas(area);
            let rows = view::item_detail_text(self, *item).line_count(text.width);
            let height = usize::from(text.height);
            self.detail_page = height;
            if let Some(Layer::ItemDetail { scroll, .. }) = self.layers.last_mut() {
                *scroll = (*scroll).min(rows.saturating_sub(height));
            }
        }
    }
}

/// Lays out a scrolled document for a view `viewport` rows tall: from the
/// end back, as far as the view and two pages above it need (scrolling up
/// lays out more on the next frame, always ahead of the view), keeping a
/// paused reader's place when rows appear above it.
fn lay_out_from_end(
    doc: &mut StreamDoc,
    scroll: &mut Scroll,
    (width, viewport): (u16, usize),
    theme: &Theme,
) {
    if !scroll.follow && scroll.top == 0 {
        // Sent to the top (scrolling up always finds two pages laid out
        // above the view, so only `g` gets here early): the beginning is
        // wanted, all of it laid out now.
        doc.layout(width, theme);
        doc.take_rows_added_above();
        return;
    }
    let below_top = if scroll.follow {
        0
    } else {
        doc.line_count().saturating_sub(scroll.top)
    };
    doc.layout_from_end(width, theme, below_top + 2 * viewport);
    let added = doc.take_rows_added_above();
    if !scroll.follow {
        scroll.top += added;
    }
    // A following view's place counts too where a jump left it.
    if let Some(held) = &mut scroll.held {
        *held += added;
    }
}
