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
    /// Only text streamed into these panes (by index), a pane's title row
    /// (its rate) drawn with it, and the header's figures (the clock, the
    /// tokens) where `header` is set.
    Streamed { panes: Vec<usize>, header: bool },
    /// Anything else.
    Whole,
}

impl Damage {
    /// A frame is needed.
    pub fn any(&self) -> bool {
        !matches!(self, Damage::None)
    }

    /// The header's figures changed (its clock, the tokens): a frame of the
    /// header alone, or with the panes already damaged.
    pub fn header(&mut self) {
        match self {
            Damage::None => {
                *self = Damage::Streamed {
                    panes: Vec::new(),
                    header: true,
                }
            }
            Damage::Streamed { header, .. } => *header = true,
            Damage::Whole => {}
        }
    }

    /// Whether all it holds is text streamed into panes `layout` does not
    /// show (a folded region, a zoomed pane's neighbours): the pacer draws
    /// it at its slower pace.
    pub fn is_off_screen(&self, layout: &crate::tui::layout::ScreenLayout) -> bool {
        match self {
            Damage::Streamed {
                panes,
                header: false,
            } if !panes.is_empty() => panes.iter().all(|index| {
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
            Damage::None => {
                *self = Damage::Streamed {
                    panes: vec![index],
                    header: false,
                }
            }
            Damage::Streamed { panes, .. } if !panes.contains(&index) => panes.push(index),
            Damage::Streamed { .. } | Damage::Whole => {}
        }
    }
}
