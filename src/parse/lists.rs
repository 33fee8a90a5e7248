//! The lists of an answer, read the same way in every format: the one list
//! an answer is about (under its key, or bare), an optional list, every
//! item of a list read as a mapping, and the ids a list had to name.
//!
//! Not responsible for what an item means: each format reads its own items
//! and says what it keeps, leaves out or refuses.

use yaml_serde::{Sequence, Value};

use super::{Document, FieldPath, Fields, ParseError, list_capped};

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

    /// Reads every item of `list` (at `path`) as a mapping with `read`,
    /// which gets the item's position and its fields, after refusing a list
    /// of more than [`super::ITEMS_PER_ANSWER_MAX`]. `what` names the items
    /// for that error (`findings`); `shape` says what each must be
    /// (`"a finding (a mapping with ...)"`). The first error stops the
    /// reading.
    pub(crate) fn read_items<'d, T>(
        &'d self,
        list: &'d [Value],
        path: &FieldPath,
        what: &str,
        shape: &str,
        mut read: impl FnMut(usize, Fields<'d>) -> Result<T, ParseError>,
    ) -> Result<Vec<T>, ParseError> {
        self.within_item_limit(path, list.len(), what)?;
        let mut items = Vec::with_capacity(list.len());
        for (index, value) in list.iter().enumerate() {
            let fields = Fields::new(self, value, path.index(index), shape)?;
            items.push(read(index, fields)?);
        }
        Ok(items)
    }

    /// Refuses the answer at `path` when an id of `wanted` is not `given`;
    /// `message` words the error from the ids missing, listed in `wanted`'s
    /// order and cut after a dozen (`no ruling on the answer to X1.2`).
    pub(crate) fn require_every<'w>(
        &self,
        path: &FieldPath,
        wanted: impl IntoIterator<Item = &'w str>,
        given: impl Fn(&str) -> bool,
        message: impl FnOnce(&str) -> String,
    ) -> Result<(), ParseError> {
        let missing: Vec<String> = wanted
            .into_iter()
            .filter(|id| !given(id))
            .map(str::to_owned)
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(self.error(path, message(&list_capped(&missing))))
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
