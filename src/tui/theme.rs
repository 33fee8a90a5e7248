//! Colour themes: named, semantic style slots loaded from YAML.
//!
//! Responsible for: the set of slots every screen draws with (text, borders,
//! roles, statuses, verdicts, markdown, …), the three built-in themes in
//! `themes/*.yaml` (compiled in), loading a user theme by name or path,
//! rejecting a theme file that misses a slot or names one that does not exist
//! with an error that points at the file, line and field, and honouring
//! `NO_COLOR`.
//!
//! Not responsible for: deciding which slot a widget uses (the widgets do),
//! choosing the user's theme directory or reading the configuration (the CLI
//! passes both in), or detecting what colours the terminal supports.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

/// The theme used when none is chosen.
pub const DEFAULT_THEME: &str = "dark";

const BUILTIN_THEMES: &[(&str, &str)] = &[
    ("dark", include_str!("../../themes/dark.yaml")),
    ("light", include_str!("../../themes/light.yaml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.yaml"),
    ),
];

const BUILTIN_NAMES: &[&str] = &["dark", "light", "high-contrast"];

/// Slot names of quorum 0.1, named by role and verdict, read as the semantic
/// slots that replaced them, so a theme written then still loads.
const LEGACY_SLOTS: &[(&str, &str)] = &[
    ("role_proposer", "role_lead"),
    ("role_critic", "role_challenger"),
    ("role_judge", "role_panel"),
    ("verdict_adopt", "tone_positive"),
    ("verdict_revise", "tone_caution"),
    ("verdict_reject", "tone_negative"),
    ("verdict_escalate", "tone_uncertain"),
    ("severity_major", "severity_high"),
    ("severity_minor", "severity_medium"),
    ("severity_note", "severity_low"),
];

/// Slots added since quorum 0.1, with the slot whose style a theme that
/// does not set them takes.
const LATER_SLOTS: &[(&str, &str)] = &[("role_synthesizer", "role_lead")];

macro_rules! theme_slots {
    ($( $(#[$doc:meta])+ $slot:ident, )+) => {
        /// Every style the TUI draws with, by meaning rather than by colour
        /// (read through [`Theme`]).
        #[derive(Clone, Debug, PartialEq)]
        pub struct ThemeStyles {
            /// The name the theme file gives itself.
            pub name: String,
            $( $(#[$doc])+ pub $slot: Style, )+
        }

        impl Theme {
            /// Every slot a theme file must set, in the order of the struct.
            pub const SLOT_NAMES: &'static [&'static str] = &[$( stringify!($slot), )+];

            /// The style of the slot called `name`.
            pub fn slot(&self, name: &str) -> Option<Style> {
                match name {
                    $( stringify!($slot) => Some(self.$slot), )+
                    _ => None,
                }
            }

            /// The style of the slot called `name`, to change it.
            pub fn slot_mut(&mut self, name: &str) -> Option<&mut Style> {
                match name {
                    $( stringify!($slot) => Some(&mut self.$slot), )+
                    _ => None,
                }
            }

            fn with_every_slot_unstyled(name: String) -> Theme {
                Theme(Arc::new(ThemeStyles {
                    name,
                    $( $slot: Style::new(), )+
                }))
            }
        }
    };
}

theme_slots! {
    /// Ordinary text.
    text,
    /// Secondary text: hints, timestamps, rules.
    dim,
    /// Pane and modal titles.
    title,
    /// Borders of panes without focus.
    border,
    /// The border of the pane with focus.
    border_focused,
    /// The selected row of a list.
    selection,
    /// Key names in the footer and the help overlay.
    key_hint,
    /// The header bar: topic, protocol, round, clock, tokens.
    header,
    /// A stage of the stage strip that has finished.
    stage_done,
    /// The stage running now.
    stage_active,
    /// A stage not reached yet.
    stage_pending,
    /// Roles that put the case forward (a proposer, a planner): names and
    /// pane accents.
    role_lead,
    /// Roles that attack it (a critic, a devil's advocate).
    role_challenger,
    /// Roles that weigh it independently (judges, reviewers, experts).
    role_panel,
    /// The role that writes the reader's deliverable.
    role_synthesizer,
    /// The moderator (the person at the keyboard).
    role_moderator,
    /// Status badge: the call has not started.
    status_waiting,
    /// Status badge: text is arriving.
    status_streaming,
    /// Status badge: the call finished.
    status_done,
    /// Status badge: no output before the deadline.
    status_timed_out,
    /// Status badge: a retry is running.
    status_retrying,
    /// Status badge: the agent is skipped for this round.
    status_skipped,
    /// Status badge: the output could not be parsed.
    status_malformed,
    /// Status badge: waiting for the moderator to decide.
    status_needs_moderator,
    /// An ending or ruling that clears the way: ADOPT, PASS, SURVIVED, a
    /// delivered document.
    tone_positive,
    /// One that asks for care: REVISE, CONCERNS, WEAKENED.
    tone_caution,
    /// One that stops: REJECT, FAIL, ELIMINATED.
    tone_negative,
    /// One that leaves the question open: ESCALATE.
    tone_uncertain,
    /// A severe item or finding (major, critical, high).
    severity_high,
    /// A middling one (minor, medium).
    severity_medium,
    /// A slight one (note, low, info).
    severity_low,
    /// The moderator accepted an item.
    decision_accept,
    /// The moderator rejected an item.
    decision_reject,
    /// The moderator deferred an item.
    decision_defer,
    /// A score below its threshold.
    score_low,
    /// A score at or above its threshold.
    score_ok,
    /// The marker of a binding judge.
    binding,
    /// An agent's reasoning text, shown apart from its answer.
    reasoning,
    /// Markdown headings.
    md_heading,
    /// Inline code and fenced code blocks.
    md_code,
    /// Markdown emphasis.
    md_emphasis,
    /// Markdown strong emphasis.
    md_strong,
    /// Block quotes and their bar.
    md_quote,
    /// List bullets and numbers.
    md_list_marker,
    /// The border of a modal dialog.
    modal_border,
    /// Error messages.
    error,
}

/// A theme that could not be found, read or accepted.
#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    #[error(
        "no theme named {name:?}; built-in themes are {builtins}{}",
        match user_dir {
            Some(dir) => format!(", and {}/{name}.yaml does not exist", dir.display()),
            None => String::new(),
        },
        builtins = BUILTIN_NAMES.join(", ")
    )]
    NotFound {
        name: String,
        user_dir: Option<PathBuf>,
    },
    #[error("cannot read the theme: {source}")]
    Read {
        path: PathBuf,
        source: crate::input::InputError,
    },
    #[error("{}", Located { source_name, line: *line, column: *column, field, message })]
    Invalid {
        /// The file (or built-in name) the YAML came from.
        source_name: String,
        line: Option<usize>,
        column: Option<usize>,
        /// The dotted path of the offending field, such as `slots.title.fg`.
        field: Option<String>,
        message: String,
    },
}

struct Located<'a> {
    source_name: &'a str,
    line: Option<usize>,
    column: Option<usize>,
    field: &'a Option<String>,
    message: &'a str,
}

impl fmt::Display for Located<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.source_name)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        f.write_str(": ")?;
        if let Some(field) = self.field {
            write!(f, "{field}: ")?;
        }
        f.write_str(self.message)
    }
}

/// A theme: its styles, shared by its copies. Every text laid out keeps
/// the theme it was laid out with and checks at each frame that it is
/// still the one: copies of one theme are told equal by their address,
/// not by comparing a hundred styles (5% of a streaming frame's work
/// before). A copy changed (through `DerefMut`) gets styles of its own.
#[derive(Clone, Debug)]
pub struct Theme(Arc<ThemeStyles>);

impl std::ops::Deref for Theme {
    type Target = ThemeStyles;

    fn deref(&self) -> &ThemeStyles {
        &self.0
    }
}

impl std::ops::DerefMut for Theme {
    fn deref_mut(&mut self) -> &mut ThemeStyles {
        Arc::make_mut(&mut self.0)
    }
}

impl PartialEq for Theme {
    fn eq(&self, other: &Theme) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl Default for Theme {
    fn default() -> Self {
        Theme::builtin(DEFAULT_THEME).expect("the default theme is built in")
    }
}

impl Theme {
    /// A theme compiled into the binary: `dark` (the default), `light` or
    /// `high-contrast`.
    pub fn builtin(name: &str) -> Option<Theme> {
        let (_, yaml) = BUILTIN_THEMES
            .iter()
            .find(|(builtin, _)| *builtin == name)?;
        let theme = Theme::parse(name, yaml).expect("built-in themes are tested to parse");
        Some(theme)
    }

    /// The names [`Theme::builtin`] accepts.
    pub fn names() -> &'static [&'static str] {
        BUILTIN_NAMES
    }

    /// Finds a theme by what the user typed:
    /// - a path (anything with a path separator or a `.yaml`/`.yml` ending)
    ///   is read as a theme file;
    /// - a built-in name gives that theme;
    /// - any other name is looked up as `user_dir/NAME.yaml`.
    ///
    /// Built-in names win over a user file of the same name, so `dark`
    /// always means the same thing; a customised copy needs its own name.
    pub fn load(name_or_path: &str, user_dir: Option<&Path>) -> Result<Theme, ThemeError> {
        if looks_like_a_path(name_or_path) {
            return Theme::load_file(Path::new(name_or_path));
        }
        if let Some(theme) = Theme::builtin(name_or_path) {
            return Ok(theme);
        }
        if let Some(dir) = user_dir
            && is_plain_name(name_or_path)
        {
            let path = dir.join(format!("{name_or_path}.yaml"));
            if path.is_file() {
                return Theme::load_file(&path);
            }
        }
        Err(ThemeError::NotFound {
            name: name_or_path.to_string(),
            user_dir: user_dir.map(Path::to_path_buf),
        })
    }

    fn load_file(path: &Path) -> Result<Theme, ThemeError> {
        let kind = crate::input::Kind::new("theme", crate::input::THEME_LIMIT);
        let yaml = crate::input::read_text(path, kind).map_err(|source| ThemeError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Theme::parse(&path.display().to_string(), &yaml)
    }

    /// Parses theme YAML; `source_name` names it in errors.
    pub fn parse(source_name: &str, yaml: &str) -> Result<Theme, ThemeError> {
        if let Err(refused) = crate::yaml_guard::check(yaml) {
            return Err(ThemeError::Invalid {
                source_name: source_name.to_string(),
                line: Some(refused.line),
                column: None,
                field: None,
                message: refused.message,
            });
        }
        let file: ThemeFile = yaml_serde::from_str(yaml).map_err(|error| {
            match crate::yaml_guard::unclosed(yaml) {
                Some(open) => ThemeError::Invalid {
                    source_name: source_name.to_string(),
                    line: Some(open.line),
                    column: None,
                    field: None,
                    message: open.message,
                },
                None => located(source_name, &error),
            }
        })?;
        let mut theme = Theme::with_every_slot_unstyled(file.name);
        let mut missing = Vec::new();
        let style_of = |name: &str| {
            let index = Theme::SLOT_NAMES.iter().position(|slot| *slot == name)?;
            file.slots.styles[index]
        };
        for name in Theme::SLOT_NAMES {
            let later = LATER_SLOTS
                .iter()
                .find(|(slot, _)| slot == name)
                .and_then(|(_, fallback)| style_of(fallback));
            match style_of(name).or(later) {
                Some(style) => *theme.slot_mut(name).expect("a listed slot") = style,
                None => missing.push(*name),
            }
        }
        if !missing.is_empty() {
            return Err(ThemeError::Invalid {
                source_name: source_name.to_string(),
                line: line_of_top_level_key(yaml, "slots"),
                column: None,
                field: Some("slots".to_string()),
                message: format!(
                    "missing {} {}; a theme must set every slot",
                    if missing.len() == 1 { "slot" } else { "slots" },
                    missing.join(", ")
                ),
            });
        }
        Ok(theme)
    }

    /// The theme with every colour removed and every modifier kept, for
    /// `NO_COLOR`: bold, reversed, dim and underline still mark focus,
    /// selection and state.
    pub fn no_color(mut self) -> Theme {
        for name in Theme::SLOT_NAMES {
            let style = self.slot_mut(name).expect("a listed slot");
            style.fg = None;
            style.bg = None;
            style.underline_color = None;
        }
        self
    }
}

/// Where user themes live: `$XDG_CONFIG_HOME/quorum/themes` (or the
/// platform's equivalent); `None` when no home directory can be found.
pub fn default_user_dir() -> Option<PathBuf> {
    use etcetera::BaseStrategy;
    let strategy = etcetera::choose_base_strategy().ok()?;
    Some(strategy.config_dir().join("quorum").join("themes"))
}

/// Whether the user asked for no colour: `NO_COLOR` is set and not empty
/// (<https://no-color.org>).
pub fn no_color_requested() -> bool {
    requests_no_color(std::env::var_os("NO_COLOR").as_deref())
}

fn requests_no_color(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|value| !value.is_empty())
}

fn looks_like_a_path(name_or_path: &str) -> bool {
    name_or_path.contains('/')
        || name_or_path.contains(std::path::MAIN_SEPARATOR)
        || name_or_path.ends_with(".yaml")
        || name_or_path.ends_with(".yml")
}

fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn line_of_top_level_key(yaml: &str, key: &str) -> Option<usize> {
    yaml.lines()
        .position(|line| {
            line.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .map(|index| index + 1)
}

fn located(source_name: &str, error: &yaml_serde::Error) -> ThemeError {
    let text = crate::text::short_quotes(&error.to_string());
    let (line, column) = match error.location() {
        Some(location) => (Some(location.line()), Some(location.column())),
        None => (None, None),
    };
    // yaml_serde appends the position to the message; it is reported up front.
    let message = match text.rfind(" at line ") {
        Some(at) if line.is_some() => &text[..at],
        _ => &text,
    };
    let (field, message) = match message.split_once(": ") {
        Some((path, rest)) if !path.is_empty() && !path.contains(' ') => {
            (Some(path.to_string()), rest.to_string())
        }
        _ => (None, message.to_string()),
    };
    ThemeError::Invalid {
        source_name: source_name.to_string(),
        line,
        column,
        field,
        message,
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    name: String,
    slots: SlotTable,
}

/// The `slots:` mapping, indexed like [`Theme::SLOT_NAMES`].
struct SlotTable {
    styles: Vec<Option<Style>>,
}

impl<'de> Deserialize<'de> for SlotTable {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(SlotTableVisitor)
    }
}

struct SlotTableVisitor;

impl<'de> Visitor<'de> for SlotTableVisitor {
    type Value = SlotTable;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a mapping from slot names to styles")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SlotTable, A::Error> {
        let mut styles = vec![None; Theme::SLOT_NAMES.len()];
        while let Some(key) = map.next_key::<String>()? {
            let key = LEGACY_SLOTS
                .iter()
                .find(|(legacy, _)| *legacy == key)
                .map_or(key.as_str(), |(_, slot)| *slot)
                .to_string();
            let Some(index) = Theme::SLOT_NAMES.iter().position(|name| *name == key) else {
                // Failing while reading the value puts the slot's name in the
                // error's path and its position in the error's location.
                return map.next_value_seed(Reject(format!(
                    "unknown slot; known slots are {}",
                    Theme::SLOT_NAMES.join(", ")
                )));
            };
            if styles[index].is_some() {
                return map.next_value_seed(Reject("set twice".to_string()));
            }
            styles[index] = Some(map.next_value::<StyleSpec>()?.into_style());
        }
        Ok(SlotTable { styles })
    }
}

/// Fails on whatever value it is asked to read, with its message.
struct Reject(String);

impl<'de> DeserializeSeed<'de> for Reject {
    type Value = SlotTable;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<SlotTable, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Reject {
    type Value = SlotTable;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<SlotTable, A::Error> {
        Err(de::Error::custom(self.0))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<SlotTable, A::Error> {
        Err(de::Error::custom(self.0))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<SlotTable, E> {
        Err(E::custom(self.0))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<SlotTable, E> {
        Err(E::custom(self.0))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<SlotTable, E> {
        Err(E::custom(self.0))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<SlotTable, E> {
        Err(E::custom(self.0))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<SlotTable, E> {
        Err(E::custom(self.0))
    }

    fn visit_unit<E: de::Error>(self) -> Result<SlotTable, E> {
        Err(E::custom(self.0))
    }
}

/// One slot as a theme file writes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StyleSpec {
    #[serde(default, deserialize_with = "present_color")]
    fg: Option<ThemeColor>,
    #[serde(default, deserialize_with = "present_color")]
    bg: Option<ThemeColor>,
    #[serde(default)]
    modifiers: Vec<ThemeModifier>,
}

/// Reads a colour that is present; an empty value is an error rather than
/// "no colour", because an unquoted `#rrggbb` is a YAML comment.
fn present_color<'de, D: de::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<ThemeColor>, D::Error> {
    ThemeColor::deserialize(deserializer).map(Some)
}

impl StyleSpec {
    fn into_style(self) -> Style {
        let mut style = Style::new();
        style.fg = self.fg.map(|color| color.0);
        style.bg = self.bg.map(|color| color.0);
        for modifier in self.modifiers {
            style = style.add_modifier(modifier.0);
        }
        style
    }
}

const NAMED_COLORS: &[(&str, Color)] = &[
    ("black", Color::Black),
    ("red", Color::Red),
    ("green", Color::Green),
    ("yellow", Color::Yellow),
    ("blue", Color::Blue),
    ("magenta", Color::Magenta),
    ("cyan", Color::Cyan),
    ("gray", Color::Gray),
    ("grey", Color::Gray),
    ("dark_gray", Color::DarkGray),
    ("dark_grey", Color::DarkGray),
    ("light_red", Color::LightRed),
    ("light_green", Color::LightGreen),
    ("light_yellow", Color::LightYellow),
    ("light_blue", Color::LightBlue),
    ("light_magenta", Color::LightMagenta),
    ("light_cyan", Color::LightCyan),
    ("white", Color::White),
    ("reset", Color::Reset),
];

const COLOR_HELP: &str = "is not a colour; use a name, #rrggbb or 0-255";

struct ThemeColor(Color);

impl ThemeColor {
    fn from_text(text: &str) -> Option<Color> {
        if let Some(hex) = text.strip_prefix('#') {
            let channel = |at: usize| {
                hex.get(at..at + 2)
                    .and_then(|digits| u8::from_str_radix(digits, 16).ok())
            };
            return (hex.len() == 6)
                .then(|| Some(Color::Rgb(channel(0)?, channel(2)?, channel(4)?)))
                .flatten();
        }
        if let Ok(index) = text.parse::<u8>() {
            return Some(Color::Indexed(index));
        }
        let name = text.replace('-', "_");
        NAMED_COLORS
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, color)| *color)
    }
}

impl<'de> Deserialize<'de> for ThemeColor {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ThemeColorVisitor)
    }
}

struct ThemeColorVisitor;

impl Visitor<'_> for ThemeColorVisitor {
    type Value = ThemeColor;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a colour: a name, \"#rrggbb\" or 0-255")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<ThemeColor, E> {
        ThemeColor::from_text(text)
            .map(ThemeColor)
            .ok_or_else(|| E::custom(format!("{text:?} {COLOR_HELP}")))
    }

    fn visit_u64<E: de::Error>(self, index: u64) -> Result<ThemeColor, E> {
        indexed_color(index)
    }

    fn visit_i64<E: de::Error>(self, index: i64) -> Result<ThemeColor, E> {
        indexed_color(index)
    }

    fn visit_unit<E: de::Error>(self) -> Result<ThemeColor, E> {
        Err(E::custom(
            "no colour given; quote a #rrggbb colour, or YAML reads it as a comment",
        ))
    }
}

/// The colour at `index` of the 256-colour palette, if there is one.
fn indexed_color<N, E>(index: N) -> Result<ThemeColor, E>
where
    N: Copy + fmt::Display,
    u8: TryFrom<N>,
    E: de::Error,
{
    u8::try_from(index)
        .map(|index| ThemeColor(Color::Indexed(index)))
        .map_err(|_| E::custom(format!("{index} {COLOR_HELP}")))
}

const MODIFIER_NAMES: &[(&str, Modifier)] = &[
    ("bold", Modifier::BOLD),
    ("dim", Modifier::DIM),
    ("italic", Modifier::ITALIC),
    ("underlined", Modifier::UNDERLINED),
    ("reversed", Modifier::REVERSED),
    ("crossed_out", Modifier::CROSSED_OUT),
];

struct ThemeModifier(Modifier);

impl<'de> Deserialize<'de> for ThemeModifier {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(ThemeModifierVisitor)
    }
}

struct ThemeModifierVisitor;

impl Visitor<'_> for ThemeModifierVisitor {
    type Value = ThemeModifier;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a modifier: {}", modifier_names())
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<ThemeModifier, E> {
        MODIFIER_NAMES
            .iter()
            .find(|(name, _)| *name == text)
            .map(|(_, modifier)| ThemeModifier(*modifier))
            .ok_or_else(|| {
                E::custom(format!(
                    "{text:?} is not a modifier; use {}",
                    modifier_names()
                ))
            })
    }
}

fn modifier_names() -> String {
    MODIFIER_NAMES
        .iter()
        .map(|(name, _)| *name)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const DARK_YAML: &str = include_str!("../../themes/dark.yaml");

    /// The dark theme's YAML with the line that sets `slot` replaced by
    /// `replacement` (or removed when it is empty).
    fn dark_with(slot: &str, replacement: &str) -> String {
        let prefix = format!("  {slot}: ");
        let mut replaced = false;
        let lines: Vec<String> = DARK_YAML
            .lines()
            .filter_map(|line| {
                if line.starts_with(&prefix) {
                    replaced = true;
                    (!replacement.is_empty()).then(|| replacement.to_string())
                } else {
                    Some(line.to_string())
                }
            })
            .collect();
        assert!(replaced, "dark.yaml sets {slot}");
        lines.join("\n")
    }

    fn line_setting(yaml: &str, needle: &str) -> usize {
        yaml.lines().position(|line| line.contains(needle)).unwrap() + 1
    }

    fn invalid(yaml: &str) -> (ThemeError, String) {
        let error = Theme::parse("theme.yaml", yaml).unwrap_err();
        let text = error.to_string();
        (error, text)
    }

    /// A theme written for quorum 0.1, whose slots were named by role and
    /// verdict and had no synthesizer, still loads: the old names read as
    /// the semantic slots, and the synthesizer takes the lead's style.
    #[test]
    fn copies_are_equal_until_one_is_changed_and_equal_styles_are_equal() {
        let dark = Theme::builtin("dark").unwrap();
        let mut copy = dark.clone();
        assert_eq!(copy, dark);
        copy.text = copy.text.add_modifier(Modifier::BOLD);
        assert_ne!(copy, dark, "a changed copy has styles of its own");
        assert_ne!(copy.text, dark.text);
        // Loaded twice: two sets of the same styles.
        assert_eq!(Theme::builtin("dark").unwrap(), dark);
        assert_ne!(Theme::builtin("light").unwrap(), dark);
    }

    #[test]
    fn a_theme_with_the_old_slot_names_still_loads() {
        let mut old = DARK_YAML.to_string();
        for (legacy, slot) in LEGACY_SLOTS {
            old = old.replace(&format!("  {slot}: "), &format!("  {legacy}: "));
        }
        let old: String = old
            .lines()
            .filter(|line| !line.trim_start().starts_with("role_synthesizer:"))
            .map(|line| format!("{line}\n"))
            .collect();
        let theme = Theme::parse("old.yaml", &old).unwrap();
        let dark = Theme::builtin("dark").unwrap();
        assert_eq!(theme.role_lead, dark.role_lead);
        assert_eq!(theme.tone_negative, dark.tone_negative);
        assert_eq!(theme.severity_high, dark.severity_high);
        assert_eq!(theme.role_synthesizer, dark.role_lead);
    }

    #[test]
    fn every_builtin_parses_and_carries_its_own_name() {
        for name in Theme::names() {
            let theme = Theme::builtin(name).unwrap_or_else(|| panic!("{name} is built in"));
            assert_eq!(theme.name, *name);
        }
        assert_eq!(Theme::builtin(DEFAULT_THEME).unwrap().name, "dark");
        assert!(Theme::builtin("solarized").is_none());
    }

    #[test]
    fn builtins_parse_through_the_public_entry_point_too() {
        for (name, yaml) in BUILTIN_THEMES {
            Theme::parse(name, yaml).unwrap_or_else(|error| panic!("{error}"));
        }
    }

    #[test]
    fn theme_files_spell_colours_modifiers_and_indices() {
        let theme = Theme::builtin("dark").unwrap();
        assert_eq!(theme.text.fg, Some(Color::Rgb(0xd8, 0xde, 0xe9)));
        assert!(theme.title.add_modifier.contains(Modifier::BOLD));
        let theme = Theme::parse(
            "t.yaml",
            &dark_with(
                "text",
                "  text: { fg: 208, bg: dark-gray, modifiers: [italic, dim] }",
            ),
        )
        .unwrap();
        assert_eq!(theme.text.fg, Some(Color::Indexed(208)));
        assert_eq!(theme.text.bg, Some(Color::DarkGray));
        assert_eq!(theme.text.add_modifier, Modifier::ITALIC | Modifier::DIM);
    }

    #[test]
    fn high_contrast_uses_only_basic_colours_with_bold_or_reversed() {
        let theme = Theme::builtin("high-contrast").unwrap();
        for name in Theme::SLOT_NAMES {
            let style = theme.slot(name).unwrap();
            for color in [style.fg, style.bg].into_iter().flatten() {
                assert!(
                    !matches!(color, Color::Rgb(..) | Color::Indexed(_) | Color::Reset),
                    "{name} uses {color:?}"
                );
            }
            assert!(
                (Modifier::BOLD | Modifier::REVERSED).contains(style.add_modifier),
                "{name} uses {:?}",
                style.add_modifier
            );
        }
    }

    #[test]
    fn unknown_slot_is_rejected_with_its_name_and_line() {
        let yaml = dark_with("text", "  txet: { fg: white }");
        let (error, text) = invalid(&yaml);
        let line = line_setting(&yaml, "txet");
        assert!(text.starts_with(&format!("theme.yaml:{line}:")), "{text}");
        assert!(
            text.contains("slots.txet: unknown slot; known slots are text, dim, title"),
            "{text}"
        );
        assert!(
            matches!(error, ThemeError::Invalid { field: Some(ref field), .. } if field == "slots.txet")
        );
    }

    #[test]
    fn missing_slot_is_named() {
        let yaml = dark_with("md_code", "");
        let (_, text) = invalid(&yaml);
        let line = line_setting(&yaml, "slots:");
        assert!(
            text.starts_with(&format!("theme.yaml:{line}: slots: ")),
            "{text}"
        );
        assert!(text.contains("missing slot md_code"), "{text}");
    }

    #[test]
    fn bad_colour_is_located_and_explained() {
        let yaml = dark_with("title", "  title: { fg: \"#zz0000\", modifiers: [bold] }");
        let (_, text) = invalid(&yaml);
        let line = line_setting(&yaml, "#zz0000");
        assert!(text.starts_with(&format!("theme.yaml:{line}:")), "{text}");
        assert!(
            text.contains(
                "slots.title.fg: \"#zz0000\" is not a colour; use a name, #rrggbb or 0-255"
            ),
            "{text}"
        );
    }

    #[test]
    fn out_of_range_index_and_unknown_name_are_not_colours() {
        let (_, text) = invalid(&dark_with("border", "  border: { bg: 300 }"));
        assert!(
            text.contains("slots.border.bg: 300 is not a colour"),
            "{text}"
        );
        let (_, text) = invalid(&dark_with("border", "  border: { fg: purple }"));
        assert!(
            text.contains("slots.border.fg: \"purple\" is not a colour"),
            "{text}"
        );
    }

    #[test]
    fn an_unquoted_hex_colour_is_caught_rather_than_read_as_no_colour() {
        let yaml = dark_with("border", "  border:\n    fg: #4c566a");
        let (_, text) = invalid(&yaml);
        assert!(
            text.contains("slots.border.fg: no colour given; quote"),
            "{text}"
        );
    }

    #[test]
    fn bad_modifier_is_located_and_lists_the_good_ones() {
        let yaml = dark_with("title", "  title: { fg: white, modifiers: [bold, blink] }");
        let (_, text) = invalid(&yaml);
        let line = line_setting(&yaml, "blink");
        assert!(text.starts_with(&format!("theme.yaml:{line}:")), "{text}");
        assert!(
            text.contains("slots.title.modifiers[1]: \"blink\" is not a modifier; use bold, dim"),
            "{text}"
        );
    }

    #[test]
    fn unknown_style_field_and_unknown_top_level_key_are_rejected() {
        let yaml = dark_with("title", "  title: { fgg: white }");
        let (_, text) = invalid(&yaml);
        let line = line_setting(&yaml, "fgg");
        assert!(text.starts_with(&format!("theme.yaml:{line}:")), "{text}");
        assert!(text.contains("slots.title: unknown field `fgg`"), "{text}");

        let yaml = format!("{DARK_YAML}\ncolours: {{}}\n");
        let (_, text) = invalid(&yaml);
        assert!(text.contains("unknown field `colours`"), "{text}");
    }

    #[test]
    fn a_slot_set_twice_is_rejected() {
        let yaml = format!("{DARK_YAML}  text: {{ fg: red }}\n");
        let (_, text) = invalid(&yaml);
        assert!(text.contains("slots.text: set twice"), "{text}");
    }

    #[test]
    fn no_color_strips_colours_and_keeps_modifiers() {
        let dark = Theme::builtin("dark").unwrap();
        let plain = dark.clone().no_color();
        for name in Theme::SLOT_NAMES {
            let (before, after) = (dark.slot(name).unwrap(), plain.slot(name).unwrap());
            assert_eq!(
                (after.fg, after.bg, after.underline_color),
                (None, None, None),
                "{name}"
            );
            assert_eq!(after.add_modifier, before.add_modifier, "{name}");
        }
    }

    #[test]
    fn focus_selection_and_attention_stay_visible_without_colour() {
        for name in Theme::names() {
            let theme = Theme::builtin(name).unwrap().no_color();
            assert_ne!(theme.selection, theme.text, "{name}: selection");
            assert_ne!(theme.border_focused, theme.border, "{name}: focus");
            assert_ne!(theme.stage_active, theme.stage_done, "{name}: active stage");
            assert_ne!(
                theme.status_needs_moderator, theme.text,
                "{name}: needs moderator"
            );
        }
    }

    #[test]
    fn no_color_needs_a_non_empty_value() {
        assert!(!requests_no_color(None));
        assert!(!requests_no_color(Some("".as_ref())));
        assert!(requests_no_color(Some("1".as_ref())));
    }

    #[test]
    fn load_finds_builtins_user_themes_and_paths() {
        let dir = tempfile::tempdir().unwrap();
        let custom = DARK_YAML.replace("name: dark", "name: dusk");
        std::fs::write(dir.path().join("dusk.yaml"), &custom).unwrap();

        assert_eq!(
            Theme::load("light", Some(dir.path())).unwrap().name,
            "light"
        );
        assert_eq!(Theme::load("dusk", Some(dir.path())).unwrap().name, "dusk");
        let by_path = dir.path().join("dusk.yaml");
        assert_eq!(
            Theme::load(by_path.to_str().unwrap(), None).unwrap().name,
            "dusk"
        );
    }

    #[test]
    fn a_builtin_name_wins_over_a_user_file() {
        let dir = tempfile::tempdir().unwrap();
        let impostor = DARK_YAML.replace("name: dark", "name: impostor");
        std::fs::write(dir.path().join("dark.yaml"), impostor).unwrap();
        assert_eq!(Theme::load("dark", Some(dir.path())).unwrap().name, "dark");
    }

    #[test]
    fn load_reports_what_it_could_not_find() {
        let dir = tempfile::tempdir().unwrap();
        let error = Theme::load("nope", Some(dir.path())).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("no theme named \"nope\""), "{text}");
        assert!(text.contains("dark, light, high-contrast"), "{text}");
        assert!(text.contains("nope.yaml does not exist"), "{text}");

        let missing = dir.path().join("absent.yaml");
        let error = Theme::load(missing.to_str().unwrap(), None).unwrap_err();
        assert!(matches!(error, ThemeError::Read { .. }), "{error}");
    }

    #[test]
    fn errors_in_a_user_file_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("broken.yaml");
        std::fs::write(&path, dark_with("title", "  title: { fg: nope }")).unwrap();
        let text = Theme::load("broken", Some(dir.path()))
            .unwrap_err()
            .to_string();
        assert!(text.starts_with(&path.display().to_string()), "{text}");
    }
}
