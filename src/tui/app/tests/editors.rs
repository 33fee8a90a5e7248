//! The editors on a small terminal: what is typed stays in sight, wrapped
//! at the box's edge instead of scrolled out of it to the left.

use super::*;

#[test]
fn a_long_note_wraps_in_its_editor_and_keeps_its_start_in_sight() {
    let mut app = moderating(items(2));
    key(&mut app, KeyCode::Char('n'));
    let words: Vec<String> = (1..=24).map(|n| format!("word{n:02}")).collect();
    for c in words.join(" ").chars() {
        key(&mut app, KeyCode::Char(c));
    }
    let screen = draw_text(&mut app, 80, 24);
    for word in &words {
        assert!(
            screen.contains(word.as_str()),
            "{word} out of sight:\n{screen}"
        );
    }
    // Wrapping is on screen only: the note keeps the one line typed.
    let Some(Layer::NoteEditor { editor, .. }) = app.layers.last() else {
        panic!("the note editor is open");
    };
    assert_eq!(editor.lines(), [words.join(" ")]);
}
