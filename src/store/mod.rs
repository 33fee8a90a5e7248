//! The local library of past debates and rulings (issue 55, DESIGN.md
//! §2e): one SQLite file under the XDG data dir
//! (`$XDG_DATA_HOME/quorum/library.sqlite3`, or `QUORUM_LIBRARY`), its
//! schema versioned in `PRAGMA user_version` and migrated in code. It keeps
//! each debate that was filed (folder, protocol, topic, verdict, times, who
//! played each slot, the hash of the prompts it ran with), every ruling on
//! an item with whether a person gave it, and the judges' own labels on
//! the same items; it answers the list and search of `quorum library` and
//! the calibration figures ([`figures`]).
//!
//! Responsible for the file: opening it, refusing one that is not a
//! library or is newer than this quorum (and never deleting or rewriting
//! it), waiting a bounded time for a lock, and every query. Not
//! responsible for reading a debate's folder (the command line folds the
//! journal and hands over a [`FiledDebate`]), nor for deciding anything
//! about a debate: the command line asks for figures and decides. Nothing
//! here opens a socket: nothing leaves the machine.

pub mod figures;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use figures::{Agreement, Kappa, Proportion};

/// The environment variable that names the library's file, instead of the
/// one under the XDG data dir (the tests use it).
pub const LIBRARY_ENV: &str = "QUORUM_LIBRARY";

/// The library's file name, in `$XDG_DATA_HOME/quorum/`.
pub const LIBRARY_FILE: &str = "library.sqlite3";

/// How long an operation waits for another process's lock on the file, in
/// milliseconds, before it reports the library locked and goes on without
/// it.
pub const BUSY_TIMEOUT_MS: u64 = 1_000;

/// Marks the file as quorum's (`PRAGMA application_id`): "QRM1".
const APPLICATION_ID: i64 = 0x5152_4d31;

/// Each schema version's migration, from the one before; the schema's
/// version is the count of those applied.
const MIGRATIONS: &[&str] = &[
    // 1: debates, who sat where, and the rulings on their items.
    "CREATE TABLE debates (
        id INTEGER PRIMARY KEY,
        folder TEXT NOT NULL UNIQUE,
        protocol TEXT NOT NULL,
        mode TEXT NOT NULL,
        topic TEXT NOT NULL,
        verdict TEXT NOT NULL,
        started_at TEXT NOT NULL,
        ended_at TEXT,
        moderated_by TEXT NOT NULL,
        prompt_hash TEXT NOT NULL,
        filed_at TEXT NOT NULL
    );
    CREATE TABLE seats (
        debate_id INTEGER NOT NULL REFERENCES debates(id) ON DELETE CASCADE,
        slot TEXT NOT NULL,
        agent TEXT NOT NULL,
        PRIMARY KEY (debate_id, slot)
    );
    CREATE TABLE rulings (
        debate_id INTEGER NOT NULL REFERENCES debates(id) ON DELETE CASCADE,
        item_id TEXT NOT NULL,
        target TEXT NOT NULL,
        text TEXT NOT NULL,
        raised_by TEXT,
        agent TEXT,
        prompt_hash TEXT NOT NULL,
        decision TEXT NOT NULL,
        by_person INTEGER NOT NULL,
        PRIMARY KEY (debate_id, item_id)
    );
    CREATE INDEX debates_started ON debates(started_at);",
    // 2: the judges' own labels on the items, for their agreement with the
    // moderator.
    "CREATE TABLE judge_labels (
        debate_id INTEGER NOT NULL REFERENCES debates(id) ON DELETE CASCADE,
        item_id TEXT NOT NULL,
        judge TEXT NOT NULL,
        agent TEXT NOT NULL,
        prompt_hash TEXT NOT NULL,
        flagged INTEGER NOT NULL,
        binding INTEGER NOT NULL,
        PRIMARY KEY (debate_id, item_id, judge)
    );
    CREATE INDEX rulings_agent ON rulings(agent, prompt_hash);
    CREATE INDEX judge_labels_agent ON judge_labels(agent, prompt_hash);",
];

/// The schema version this quorum writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Why the library could not be used. Every message names the file; none
/// ever leads to the file being deleted or rewritten.
#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    #[error("no library path: set {LIBRARY_ENV} or XDG_DATA_HOME (no home directory was found)")]
    NoPath,
    #[error("cannot create the library's folder {}: {source}", path.display())]
    Folder {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is not a quorum library ({reason}); it was left as it is", path.display())]
    NotALibrary { path: PathBuf, reason: String },
    #[error(
        "{} was written by a newer quorum (schema version {found}; this quorum knows up to {SCHEMA_VERSION}); it was left as it is",
        path.display()
    )]
    Newer { path: PathBuf, found: i64 },
    #[error("{} is locked by another process (waited {BUSY_TIMEOUT_MS} ms)", path.display())]
    Locked { path: PathBuf },
    #[error("{}: {source}", path.display())]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
}

impl LibraryError {
    fn of(path: &Path, source: rusqlite::Error) -> LibraryError {
        let path = path.to_path_buf();
        match source.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
                LibraryError::Locked { path }
            }
            Some(rusqlite::ErrorCode::NotADatabase) => LibraryError::NotALibrary {
                path,
                reason: "not an SQLite database".to_string(),
            },
            Some(rusqlite::ErrorCode::DatabaseCorrupt) => LibraryError::NotALibrary {
                path,
                reason: "the database is damaged".to_string(),
            },
            _ => LibraryError::Sqlite { path, source },
        }
    }
}

/// Where the library lives: `QUORUM_LIBRARY` when set, else
/// `$XDG_DATA_HOME/quorum/library.sqlite3` (`~/.local/share` by default).
pub fn library_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(LIBRARY_ENV).filter(|path| !path.is_empty()) {
        return Some(PathBuf::from(path));
    }
    use etcetera::BaseStrategy;
    let strategy = etcetera::choose_base_strategy().ok()?;
    Some(strategy.data_dir().join("quorum").join(LIBRARY_FILE))
}

/// One role slot and who played it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Seat {
    pub slot: String,
    /// `provider:model`.
    pub agent: String,
}

/// A ruling on one item, with who raised it and whether a person gave it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FiledRuling {
    pub item_id: String,
    /// What the item is about (a block id); empty for the whole text.
    pub target: String,
    pub text: String,
    /// The slot that raised it, where the debate says.
    pub raised_by: Option<String>,
    /// Who played that slot, `provider:model`.
    pub agent: Option<String>,
    /// `accept`, `reject` or `defer`.
    pub decision: String,
    /// A person gave it (not a headless policy): only such rulings are
    /// labels.
    pub by_person: bool,
}

/// A judge's own label on an item: whether it flagged what the item is
/// about.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct JudgeLabel {
    pub item_id: String,
    /// The judge's slot (`judge.analyst`).
    pub judge: String,
    pub agent: String,
    pub flagged: bool,
    /// The judge was binding in that debate.
    pub binding: bool,
}

/// One debate as the library files it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FiledDebate {
    /// The debate's folder, absolute.
    pub folder: String,
    pub protocol: String,
    /// `decision review · architecture · …`.
    pub mode: String,
    pub topic: String,
    /// `ADOPT`, `REVISE`, …, `completed`, `failed` or `unfinished`.
    pub verdict: String,
    /// RFC 3339.
    pub started_at: String,
    pub ended_at: Option<String>,
    /// `person`, `caller` (the agent that called `quorum mcp` ruled),
    /// `script`, or the headless policy (`accept`, `planner`, …); where
    /// more than one ruled, each, in the order they first ruled (`person,
    /// accept`).
    pub moderated_by: String,
    /// The hash of the prompt templates the debate ran with.
    pub prompt_hash: String,
    pub seats: Vec<Seat>,
    pub rulings: Vec<FiledRuling>,
    pub judge_labels: Vec<JudgeLabel>,
}

/// A debate as `quorum library` lists it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Listed {
    pub folder: String,
    pub protocol: String,
    pub mode: String,
    pub topic: String,
    pub verdict: String,
    pub started_at: String,
    pub rulings: u64,
    pub person_rulings: u64,
    /// With a query: the items whose text matched, `id: text`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub matching_items: Vec<String>,
}

/// What `quorum doctor` says of the library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Health {
    pub schema_version: i64,
    pub debates: u64,
    /// Rulings a person gave on an accepted or rejected item.
    pub labels: u64,
    pub judge_labels: u64,
}

/// A critic's figure: per `provider:model` and prompt hash.
#[derive(Clone, Debug, PartialEq)]
pub struct CriticFigure {
    pub agent: String,
    pub prompt_hash: String,
    pub accepted: u64,
    pub rejected: u64,
    /// The acceptance precision with its 95 % Wilson interval.
    pub precision: Option<Proportion>,
}

/// A judge's figure: per `provider:model` and prompt hash.
#[derive(Clone, Debug, PartialEq)]
pub struct JudgeFigure {
    pub agent: String,
    pub prompt_hash: String,
    pub table: Agreement,
    pub kappa: Option<Kappa>,
}

/// An open library.
pub struct Library {
    connection: Connection,
    path: PathBuf,
}

impl Library {
    /// Opens (creating when missing) the library at `path`, migrated to
    /// this quorum's schema.
    pub fn open(path: &Path) -> Result<Library, LibraryError> {
        if let Some(parent) = path
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty())
        {
            std::fs::create_dir_all(parent).map_err(|source| LibraryError::Folder {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        let connection = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|source| LibraryError::of(path, source))?;
        let mut library = Library {
            connection,
            path: path.to_path_buf(),
        };
        library.prepare()?;
        Ok(library)
    }

    /// Opens the library where [`library_path`] says.
    pub fn open_default() -> Result<Library, LibraryError> {
        Library::open(&library_path().ok_or(LibraryError::NoPath)?)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn fail(&self, source: rusqlite::Error) -> LibraryError {
        LibraryError::of(&self.path, source)
    }

    /// The busy timeout, the checks that the file is a library this quorum
    /// can read, and the migrations it lacks, in one transaction.
    fn prepare(&mut self) -> Result<(), LibraryError> {
        self.connection
            .busy_timeout(Duration::from_millis(BUSY_TIMEOUT_MS))
            .map_err(|source| self.fail(source))?;
        let version: i64 = self
            .connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(|source| self.fail(source))?;
        let application: i64 = self
            .connection
            .query_row("PRAGMA application_id", [], |row| row.get(0))
            .map_err(|source| self.fail(source))?;
        if version > SCHEMA_VERSION {
            return Err(LibraryError::Newer {
                path: self.path.clone(),
                found: version,
            });
        }
        let tables: i64 = self
            .connection
            .query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get(0))
            .map_err(|source| self.fail(source))?;
        let foreign =
            (application != 0 && application != APPLICATION_ID) || (application == 0 && tables > 0);
        if foreign {
            return Err(LibraryError::NotALibrary {
                path: self.path.clone(),
                reason: "an SQLite database of another program".to_string(),
            });
        }
        self.connection
            .execute_batch("PRAGMA foreign_keys = ON;")
            .map_err(|source| self.fail(source))?;
        if version < SCHEMA_VERSION {
            self.migrate(version)?;
        }
        Ok(())
    }

    /// Applies the migrations after `from`, and the new version, in one
    /// transaction: a library is at one version or the next, never between.
    fn migrate(&mut self, from: i64) -> Result<(), LibraryError> {
        let path = self.path.clone();
        let fail = |source| LibraryError::of(&path, source);
        let transaction = self
            .connection
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(fail)?;
        // Another process may have migrated it while this one waited.
        let version: i64 = transaction
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(fail)?;
        for migration in MIGRATIONS.iter().skip(version.max(from) as usize) {
            transaction.execute_batch(migration).map_err(fail)?;
        }
        transaction
            .execute_batch(&format!(
                "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION};"
            ))
            .map_err(fail)?;
        transaction.commit().map_err(fail)
    }

    /// The schema version of the open file.
    pub fn schema_version(&self) -> Result<i64, LibraryError> {
        self.connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(|source| self.fail(source))
    }

    /// Files `debate`, replacing what the library held of the same folder
    /// (a debate filed again after a resume).
    pub fn file(&mut self, debate: &FiledDebate) -> Result<(), LibraryError> {
        let path = self.path.clone();
        let fail = |source| LibraryError::of(&path, source);
        let transaction = self
            .connection
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(fail)?;
        transaction
            .execute(
                "DELETE FROM debates WHERE folder = ?1",
                params![debate.folder],
            )
            .map_err(fail)?;
        transaction
            .execute(
                "INSERT INTO debates (folder, protocol, mode, topic, verdict, started_at, ended_at,
                     moderated_by, prompt_hash, filed_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    debate.folder,
                    debate.protocol,
                    debate.mode,
                    debate.topic,
                    debate.verdict,
                    debate.started_at,
                    debate.ended_at,
                    debate.moderated_by,
                    debate.prompt_hash,
                    chrono::Utc::now().to_rfc3339(),
                ],
            )
            .map_err(fail)?;
        let id = transaction.last_insert_rowid();
        for seat in &debate.seats {
            transaction
                .execute(
                    "INSERT OR REPLACE INTO seats (debate_id, slot, agent) VALUES (?1, ?2, ?3)",
                    params![id, seat.slot, seat.agent],
                )
                .map_err(fail)?;
        }
        for ruling in &debate.rulings {
            transaction
                .execute(
                    "INSERT OR REPLACE INTO rulings (debate_id, item_id, target, text, raised_by,
                         agent, prompt_hash, decision, by_person)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    params![
                        id,
                        ruling.item_id,
                        ruling.target,
                        ruling.text,
                        ruling.raised_by,
                        ruling.agent,
                        debate.prompt_hash,
                        ruling.decision,
                        ruling.by_person,
                    ],
                )
                .map_err(fail)?;
        }
        for label in &debate.judge_labels {
            transaction
                .execute(
                    "INSERT OR REPLACE INTO judge_labels (debate_id, item_id, judge, agent,
                         prompt_hash, flagged, binding)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    params![
                        id,
                        label.item_id,
                        label.judge,
                        label.agent,
                        debate.prompt_hash,
                        label.flagged,
                        label.binding,
                    ],
                )
                .map_err(fail)?;
        }
        transaction.commit().map_err(fail)
    }

    /// Debates newest first, at most `limit`; with `query`, those whose
    /// topic or an item's text holds it (case-insensitive for ASCII), each
    /// with the items that matched.
    pub fn list(&self, query: Option<&str>, limit: usize) -> Result<Vec<Listed>, LibraryError> {
        let pattern = query.map(like_pattern);
        let mut statement = self
            .connection
            .prepare(
                "SELECT d.id, d.folder, d.protocol, d.mode, d.topic, d.verdict, d.started_at,
                    (SELECT count(*) FROM rulings r WHERE r.debate_id = d.id),
                    (SELECT count(*) FROM rulings r WHERE r.debate_id = d.id AND r.by_person = 1)
                 FROM debates d
                 WHERE ?1 IS NULL OR d.topic LIKE ?1 ESCAPE '\\'
                    OR EXISTS (SELECT 1 FROM rulings r WHERE r.debate_id = d.id
                               AND r.text LIKE ?1 ESCAPE '\\')
                 ORDER BY d.started_at DESC, d.id DESC
                 LIMIT ?2",
            )
            .map_err(|source| self.fail(source))?;
        let rows = statement
            .query_map(params![pattern, limit as i64], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    Listed {
                        folder: row.get(1)?,
                        protocol: row.get(2)?,
                        mode: row.get(3)?,
                        topic: row.get(4)?,
                        verdict: row.get(5)?,
                        started_at: row.get(6)?,
                        rulings: row.get::<_, i64>(7)? as u64,
                        person_rulings: row.get::<_, i64>(8)? as u64,
                        matching_items: Vec::new(),
                    },
                ))
            })
            .map_err(|source| self.fail(source))?;
        let mut listed = Vec::new();
        for row in rows {
            let (id, mut debate) = row.map_err(|source| self.fail(source))?;
            if let Some(pattern) = &pattern {
                let mut items = self
                    .connection
                    .prepare_cached(
                        "SELECT item_id, text FROM rulings
                         WHERE debate_id = ?1 AND text LIKE ?2 ESCAPE '\\' ORDER BY item_id",
                    )
                    .map_err(|source| self.fail(source))?;
                let matched = items
                    .query_map(params![id, pattern], |row| {
                        Ok(format!(
                            "{}: {}",
                            row.get::<_, String>(0)?,
                            row.get::<_, String>(1)?
                        ))
                    })
                    .map_err(|source| self.fail(source))?;
                for item in matched {
                    debate
                        .matching_items
                        .push(item.map_err(|source| self.fail(source))?);
                }
            }
            listed.push(debate);
        }
        Ok(listed)
    }

    /// How many debates, labels and judges' labels the library holds.
    pub fn health(&self) -> Result<Health, LibraryError> {
        let count = |sql: &str| -> Result<u64, LibraryError> {
            self.connection
                .query_row(sql, [], |row| row.get::<_, i64>(0))
                .map(|count| count as u64)
                .map_err(|source| self.fail(source))
        };
        Ok(Health {
            schema_version: self.schema_version()?,
            debates: count("SELECT count(*) FROM debates")?,
            labels: count(
                "SELECT count(*) FROM rulings WHERE by_person = 1 AND decision IN ('accept', 'reject')",
            )?,
            judge_labels: count(
                "SELECT count(*) FROM judge_labels j JOIN rulings r
                   ON r.debate_id = j.debate_id AND r.item_id = j.item_id
                 WHERE r.by_person = 1 AND r.decision IN ('accept', 'reject')",
            )?,
        })
    }

    /// Each critic's acceptance precision over the rulings a person gave,
    /// per `provider:model` and prompt hash.
    pub fn critic_figures(&self) -> Result<Vec<CriticFigure>, LibraryError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT agent, prompt_hash,
                    sum(decision = 'accept'), sum(decision = 'reject')
                 FROM rulings
                 WHERE by_person = 1 AND agent IS NOT NULL AND decision IN ('accept', 'reject')
                 GROUP BY agent, prompt_hash ORDER BY agent, prompt_hash",
            )
            .map_err(|source| self.fail(source))?;
        let rows = statement
            .query_map([], |row| {
                let accepted = row.get::<_, i64>(2)? as u64;
                let rejected = row.get::<_, i64>(3)? as u64;
                Ok(CriticFigure {
                    agent: row.get(0)?,
                    prompt_hash: row.get(1)?,
                    accepted,
                    rejected,
                    precision: figures::wilson(accepted, accepted + rejected),
                })
            })
            .map_err(|source| self.fail(source))?;
        rows.collect::<Result<_, _>>()
            .map_err(|source| self.fail(source))
    }

    /// Each judge's agreement with the moderator over the items a person
    /// accepted or rejected, per `provider:model` and prompt hash.
    pub fn judge_figures(&self) -> Result<Vec<JudgeFigure>, LibraryError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT j.agent, j.prompt_hash, j.flagged, r.decision = 'accept'
                 FROM judge_labels j JOIN rulings r
                   ON r.debate_id = j.debate_id AND r.item_id = j.item_id
                 WHERE r.by_person = 1 AND r.decision IN ('accept', 'reject')",
            )
            .map_err(|source| self.fail(source))?;
        let rows = statement
            .query_map([], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, bool>(2)?,
                    row.get::<_, bool>(3)?,
                ))
            })
            .map_err(|source| self.fail(source))?;
        let mut tables: BTreeMap<(String, String), Agreement> = BTreeMap::new();
        for row in rows {
            let (agent, prompt_hash, flagged, accepted) =
                row.map_err(|source| self.fail(source))?;
            tables
                .entry((agent, prompt_hash))
                .or_default()
                .count(flagged, accepted);
        }
        Ok(tables
            .into_iter()
            .map(|((agent, prompt_hash), table)| JudgeFigure {
                agent,
                prompt_hash,
                table,
                kappa: table.kappa(),
            })
            .collect())
    }

    /// The figure of the judge played by `agent` under `prompt_hash`, if
    /// the library has labels for it.
    pub fn judge_figure(
        &self,
        agent: &str,
        prompt_hash: &str,
    ) -> Result<Option<JudgeFigure>, LibraryError> {
        Ok(self
            .judge_figures()?
            .into_iter()
            .find(|figure| figure.agent == agent && figure.prompt_hash == prompt_hash))
    }

    /// Whether the library holds `folder`.
    pub fn holds(&self, folder: &str) -> Result<bool, LibraryError> {
        self.connection
            .query_row(
                "SELECT 1 FROM debates WHERE folder = ?1",
                params![folder],
                |_| Ok(()),
            )
            .optional()
            .map(|found| found.is_some())
            .map_err(|source| self.fail(source))
    }
}

/// `query` as a LIKE pattern that matches it anywhere, its own `%`, `_`
/// and `\` taken literally.
fn like_pattern(query: &str) -> String {
    let mut pattern = String::from("%");
    for c in query.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

#[cfg(test)]
mod tests;
