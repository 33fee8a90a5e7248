//! The lists of an answer, read the same way in every format: the one list
//! an answer is about (under its key, or bare), an optional list, every
//! item of a list read as a mapping, and the ids a list had to name.
//!
//! Not responsible for what an item means: each format reads its own items
//! and says what it keeps, leaves out or refuses.

use yaml_serde::{Sequence, Value};

use super::{Document, FieldPath, Fields, ParseError, Slip};

/// What each item of a list must be: how an error describes it (`a
/// critique (a mapping with target_block, flaw_type, severity,
/// description)`), and every key it may have; any other key is read past
/// with a note.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    pub(crate) what: &'static str,
    pub(crate) keys: &'static [&'static str],
    /// The key that names an item, when it has one (`id`, `challenge`):
    /// an item left out is named by what it holds there, as written.
    pub(crate) id_key: Option<&'static str>,
}

impl Document {
    /// The list under `key` of a mapping answer, or the bare list, with its
    /// path; `expected` describes the format for an answer that is neither
    /// (`"`critiques:` with a list of critiques"`).
    pub(crate) fn main_list(
        &self,
        key: &str,
        expected: &str,
    ) -> Result<(&Sequence, FieldPath), ParseError> {
        match &self.root {
            Value::Sequence(list) => Ok((list, FieldPath::root())),
            Value::Mapping(_) => self.root_fields(expected)?.required_list(key),
            _ => Err(self.root_mismatch(expected)),
        }
    }

    /// Reads every item of `list` (at `path`) as a mapping of `shape` with
    /// `read`, which gets the item's position and its fields, after
    /// refusing a list of more than [`super::ITEMS_PER_ANSWER_MAX`]; `what`
    /// names the items for that error (`findings`). Item by item (issue
    /// 59): an item that is not a mapping, or that `read` refuses, is left
    /// out as a [`Slip`] at its position (its notes forgotten) and the
    /// reading goes on; a key the shape does not name is noted and read
    /// past. Each item kept comes with its position, so ids given by
    /// position never move when another is left out.
    pub(crate) fn read_items<'d, T>(
        &'d self,
        list: &'d [Value],
        path: &FieldPath,
        what: &str,
        shape: Shape,
        mut read: impl FnMut(usize, Fields<'d>) -> Result<T, ParseError>,
    ) -> Result<Vec<(usize, T)>, ParseError> {
        self.within_item_limit(path, list.len(), what)?;
        let mut items = Vec::with_capacity(list.len());
        for (index, value) in list.iter().enumerate() {
            let notes_before = self.notes_made();
            let item = Fields::new(self, value, path.index(index), shape.what).and_then(|fields| {
                fields.note_stray_keys(shape.keys);
                read(index, fields)
            });
            match item {
                Ok(item) => items.push((index, item)),
                Err(error) => {
                    self.forget_notes_after(notes_before);
                    let named = shape
                        .id_key
                        .and_then(|key| value.get(key))
                        .and_then(super::scalar_text)
                        .filter(|id| !id.is_empty());
                    let slip = Slip::at(index, error);
                    self.slip(match named {
                        Some(id) => slip.named(id),
                        None => slip,
                    });
                }
            }
        }
        Ok(items)
    }

    /// The items of the list at `path` (`what` names one: `block`), each
    /// with its position, one per id (`id` gives an item's): a copy the
    /// same as the first is read past with a note, and copies that differ
    /// are a conflict that takes neither, each left out as a [`Slip`]
    /// (issue 59: a conflict is never settled by a silent pick).
    pub(crate) fn one_per_id<T: PartialEq>(
        &self,
        items: Vec<(usize, T)>,
        path: &FieldPath,
        what: &str,
        id: impl Fn(&T) -> String,
    ) -> Vec<(usize, T)> {
        let mut kept: Vec<(usize, T)> = Vec::with_capacity(items.len());
        let mut conflicted: Vec<String> = Vec::new();
        let mut places: std::collections::HashMap<String, Vec<usize>> =
            std::collections::HashMap::new();
        for (index, item) in items {
            let key = id(&item);
            match kept.iter().position(|(_, other)| id(other) == key) {
                Some(first) if kept[first].1 == item => {
                    self.note(format!(
                        "read past {} {}, given again the same ({})",
                        what,
                        super::quote(&key),
                        path.index(index)
                    ));
                }
                Some(_) => {
                    if !conflicted.contains(&key) {
                        conflicted.push(key.clone());
                    }
                    places.entry(key).or_default().push(index);
                }
                None => {
                    places.entry(key).or_default().push(index);
                    kept.push((index, item));
                }
            }
        }
        for key in &conflicted {
            let at = &places[key];
            let named: Vec<String> = at
                .iter()
                .map(|index| path.index(*index).to_string())
                .collect();
            for index in at {
                let message = format!(
                    "{what} {} is given {} times with different words ({}); give it once",
                    super::quote(key),
                    at.len(),
                    named.join(", ")
                );
                self.slip(
                    Slip::at(*index, self.error(&path.index(*index), message)).named(key.clone()),
                );
            }
        }
        kept.retain(|(_, item)| !conflicted.contains(&id(item)));
        kept
    }

    /// Leaves out, as a [`Slip`] named by the id, every id of `wanted` the
    /// answer had to give and did not (`given` says whether it did), at
    /// `path`; `message` words the problem from the id (`no entry
    /// addresses c3`). What the answer did give is read all the same.
    pub(crate) fn slip_each_missing<'w>(
        &self,
        path: &FieldPath,
        wanted: impl IntoIterator<Item = &'w str>,
        given: impl Fn(&str) -> bool,
        message: impl Fn(&str) -> String,
    ) {
        for id in wanted.into_iter().filter(|id| !given(id)) {
            self.slip(Slip::of(id, self.error(path, message(id))));
        }
    }
}

impl<'a> Fields<'a> {
    /// The list under `key`, with its path; absent or null is an empty list.
    pub(crate) fn optional_list(&self, key: &str) -> Result<(&'a [Value], FieldPath), ParseError> {
        match self.get(key) {
            None | Some((_, Value::Null)) => Ok((&[], self.path_of(key))),
            Some(_) => self
                .required_list(key)
                .map(|(list, path)| (list.as_slice(), path)),
        }
    }
}
