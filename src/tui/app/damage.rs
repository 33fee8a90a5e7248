//! What changed on screen since the last frame: the state marks it as it
//! changes, and the screen (`tui::screen`) reads it to draw no more than
//! that. It lives with the state, below the screen, so that marking it
//! imports nothing from above.

/// What changed on screen since the last frame.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Damage {
    /// Nothing: no frame is needed.
    #[default]
    None,
    /// Only text streamed into these panes (by index), and with it the
    /// header's counts (or only the header, with no panes); a pane's title
    /// row (its rate) is drawn with it.
    Streamed(Vec<usize>),
    /// Anything else.
    Whole,
}

impl Damage {
    /// A frame is needed.
    pub fn any(&self) -> bool {
        !matches!(self, Damage::None)
    }

    /// Only the header changed (its clock): a frame of the header alone,
    /// or with the panes already damaged.
    pub fn header(&mut self) {
        if matches!(self, Damage::None) {
            *self = Damage::Streamed(Vec::new());
        }
    }

    /// Whether all it holds is text streamed into panes `layout` does not
    /// show (a folded region, a zoomed pane's neighbours): the pacer draws
    /// it at its slower pace.
    pub fn is_off_screen(&self, layout: &crate::tui::layout::ScreenLayout) -> bool {
        match self {
            Damage::Streamed(panes) if !panes.is_empty() => panes.iter().all(|index| {
                layout
                    .rect(crate::tui::layout::Region::Pane(*index))
                    .is_none()
            }),
            _ => false,
        }
    }

    /// Text streamed into pane `index`.
    pub fn streamed(&mut self, index: usize) {
        match self {
            Damage::None => *self = Damage::Streamed(vec![index]),
            Damage::Streamed(panes) if !panes.contains(&index) => panes.push(index),
            Damage::Streamed(_) | Damage::Whole => {}
        }
    }
}
