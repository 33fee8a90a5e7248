//! The record of one moderator decision on an item, as the protocols that
//! keep each decision with its round (a council's challenges, a root-cause
//! analysis's challenges and rulings) write it in their structured record.

use serde::{Deserialize, Serialize};

use super::ItemDecision;

/// A moderator's decision on an item in a round, with the moderator's note.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moderated {
    pub round: u32,
    pub decision: ItemDecision,
    pub note: Option<String>,
}
