//! The item list keeps each row's decision in sight, whatever its items
//! are aimed at.

use super::*;

/// A writing review aims its items at places in the draft, quoted; such a
/// target is cut in the list (the item's detail names it whole), so that
/// the decision column stays on screen at 80 columns.
#[test]
fn a_long_target_is_cut_so_every_row_shows_its_decision() {
    let mut board = items(3);
    for (entry, target) in board.items.iter_mut().zip([
        "subject line and first paragraph",
        "second paragraph, \"This means people will not be blamed.\"",
        "b1",
    ]) {
        entry.item.target = target.into();
        if target != "b1" {
            // A place in the draft has no entry of its own.
            entry.item.target_text.clear();
        }
    }
    let mut app = moderating(board);
    key(&mut app, KeyCode::Char('a'));
    let screen = draw_text(&mut app, 80, 24);
    let row = |id: &str| {
        screen
            .lines()
            .find(|line| line.contains(&format!("{id}  ")))
            .unwrap_or_else(|| panic!("{id}'s row:\n{screen}"))
            .to_string()
    };
    assert!(row("c1").contains("accept"), "{}", row("c1"));
    for id in ["c2", "c3"] {
        assert!(row(id).contains(" ? "), "{}", row(id));
    }
    assert!(
        row("c2").contains("second paragraph, \"This…"),
        "{}",
        row("c2")
    );
    // The detail of the item under the cursor names its target whole.
    let screen = draw_text(&mut app, 100, 30);
    assert!(
        screen.contains("c2 on second paragraph, \"This means people will not be blamed.\""),
        "{screen}"
    );
}
