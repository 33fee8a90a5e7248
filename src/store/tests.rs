use super::*;

fn debate(folder: &str, topic: &str, rulings: &[(&str, &str, bool)]) -> FiledDebate {
    FiledDebate {
        folder: folder.to_string(),
        protocol: "decision-review".to_string(),
        mode: "decision review · architecture".to_string(),
        topic: topic.to_string(),
        verdict: "ADOPT".to_string(),
        started_at: format!("2026-01-0{}T00:00:00+00:00", folder.len() % 9 + 1),
        ended_at: None,
        moderated_by: "person".to_string(),
        prompt_hash: "abc123".to_string(),
        seats: vec![Seat {
            slot: "critic".to_string(),
            agent: "script:critic".to_string(),
        }],
        rulings: rulings
            .iter()
            .map(|(id, decision, by_person)| FiledRuling {
                item_id: id.to_string(),
                target: "b1".to_string(),
                text: format!("item {id} about caching"),
                raised_by: Some("critic".to_string()),
                agent: Some("script:critic".to_string()),
                decision: decision.to_string(),
                by_person: *by_person,
            })
            .collect(),
        judge_labels: rulings
            .iter()
            .map(|(id, decision, _)| JudgeLabel {
                item_id: id.to_string(),
                judge: "judge.analyst".to_string(),
                agent: "script:analyst".to_string(),
                flagged: *decision == "accept",
                binding: true,
            })
            .collect(),
    }
}

/// JM-23: a library written at schema version 1 opens, is migrated to the
/// current version in place, and keeps every debate and ruling it held.
#[test]
fn jm_23_a_version_1_library_is_migrated_and_keeps_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("library.sqlite3");
    {
        let connection = Connection::open(&path).unwrap();
        connection.execute_batch(MIGRATIONS[0]).unwrap();
        connection
            .execute_batch(&format!(
                "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = 1;
                 INSERT INTO debates (folder, protocol, mode, topic, verdict, started_at,
                     moderated_by, prompt_hash, filed_at)
                 VALUES ('/d/one', 'decision-review', 'decision review', 'Old topic', 'ADOPT',
                     '2025-01-01T00:00:00Z', 'person', 'h1', '2025-01-01T00:00:00Z');
                 INSERT INTO rulings (debate_id, item_id, target, text, raised_by, agent,
                     prompt_hash, decision, by_person)
                 VALUES (1, 'c1', 'b1', 'old item', 'critic', 'a:m', 'h1', 'accept', 1);"
            ))
            .unwrap();
    }
    let library = Library::open(&path).unwrap();
    assert_eq!(library.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(SCHEMA_VERSION, 2);
    let listed = library.list(None, 10).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].topic, "Old topic");
    assert_eq!(listed[0].person_rulings, 1);
    let critics = library.critic_figures().unwrap();
    assert_eq!(critics[0].accepted, 1);
    // The table version 2 brought is there and empty.
    assert!(library.judge_figures().unwrap().is_empty());
    drop(library);
    // Opening it again migrates nothing and changes nothing.
    let again = Library::open(&path).unwrap();
    assert_eq!(again.health().unwrap().debates, 1);
}

/// JM-24: a file that is not a database, a database of another program and
/// a library of a newer quorum are each refused, naming the file, and left
/// exactly as they were.
#[test]
fn jm_24_a_corrupt_foreign_or_newer_file_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.sqlite3");
    let bytes =
        b"this is a text file, not a database, and it is long enough to be read".repeat(100);
    std::fs::write(&garbage, &bytes).unwrap();
    let error = Library::open(&garbage).err().unwrap();
    assert!(
        matches!(error, LibraryError::NotALibrary { .. }),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.contains("garbage.sqlite3"), "{message}");
    assert!(message.contains("left as it is"), "{message}");
    assert_eq!(std::fs::read(&garbage).unwrap(), bytes);

    let foreign = dir.path().join("foreign.sqlite3");
    Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine');")
        .unwrap();
    let before = std::fs::read(&foreign).unwrap();
    let error = Library::open(&foreign).err().unwrap();
    assert!(error.to_string().contains("another program"), "{error}");
    assert_eq!(std::fs::read(&foreign).unwrap(), before);

    let newer = dir.path().join("newer.sqlite3");
    Connection::open(&newer)
        .unwrap()
        .execute_batch(&format!(
            "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = 99;"
        ))
        .unwrap();
    let before = std::fs::read(&newer).unwrap();
    let error = Library::open(&newer).err().unwrap();
    assert!(
        matches!(error, LibraryError::Newer { found: 99, .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("newer quorum"), "{error}");
    assert_eq!(std::fs::read(&newer).unwrap(), before);
}

/// JM-25: while another connection holds the write lock, filing waits the
/// bounded time and reports the library locked; once it lets go, filing
/// works.
#[test]
fn jm_25_a_locked_library_is_reported_after_a_bounded_wait() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("library.sqlite3");
    let mut library = Library::open(&path).unwrap();
    let holder = Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE;").unwrap();
    let started = std::time::Instant::now();
    let error = library
        .file(&debate("/d/a", "Locked", &[("c1", "accept", true)]))
        .err()
        .unwrap();
    assert!(matches!(error, LibraryError::Locked { .. }), "{error:?}");
    assert!(error.to_string().contains("locked by another process"));
    assert!(started.elapsed() < Duration::from_millis(BUSY_TIMEOUT_MS * 5));
    holder.execute_batch("ROLLBACK;").unwrap();
    library
        .file(&debate("/d/a", "Locked", &[("c1", "accept", true)]))
        .unwrap();
    assert_eq!(library.health().unwrap().debates, 1);
}

/// JM-26: an unwritable place for the library is an error naming it.
#[test]
fn jm_26_an_unwritable_library_path_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    // Its folder would have to be made inside a regular file.
    let error = Library::open(&file.join("quorum").join(LIBRARY_FILE))
        .err()
        .unwrap();
    assert!(matches!(error, LibraryError::Folder { .. }), "{error:?}");
    assert!(error.to_string().contains("a-file"), "{error}");
}

/// JM-27: filed debates list newest first, a query finds topics and item
/// texts (its `%` and `_` literal), filing a folder again replaces it, and
/// only a person's accept or reject counts toward the figures.
#[test]
fn jm_27_filing_listing_searching_and_counting_only_a_persons_rulings() {
    let dir = tempfile::tempdir().unwrap();
    let mut library = Library::open(&dir.path().join("l.sqlite3")).unwrap();
    library
        .file(&debate(
            "/d/a",
            "Cache the sessions",
            &[
                ("c1", "accept", true),
                ("c2", "reject", true),
                ("c3", "defer", true),
            ],
        ))
        .unwrap();
    library
        .file(&debate(
            "/d/bb",
            "Move to 50% Postgres",
            &[("c1", "accept", false)],
        ))
        .unwrap();
    let all = library.list(None, 10).unwrap();
    assert_eq!(
        all.iter().map(|d| d.folder.as_str()).collect::<Vec<_>>(),
        ["/d/bb", "/d/a"]
    );
    let found = library.list(Some("postgres"), 10).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(library.list(Some("50%"), 10).unwrap().len(), 1);
    assert_eq!(library.list(Some("5_%"), 10).unwrap().len(), 0);
    let by_item = library.list(Some("item c2"), 10).unwrap();
    assert_eq!(by_item.len(), 1);
    assert_eq!(by_item[0].matching_items, ["c2: item c2 about caching"]);

    let critics = library.critic_figures().unwrap();
    assert_eq!(critics.len(), 1);
    assert_eq!((critics[0].accepted, critics[0].rejected), (1, 1));
    let judges = library.judge_figures().unwrap();
    assert_eq!(judges[0].table.labels(), 2);
    assert_eq!(judges[0].kappa.unwrap().kappa, Some(1.0));

    // Filed again (after a resume): one debate, its new rulings.
    library
        .file(&debate(
            "/d/a",
            "Cache the sessions",
            &[("c1", "reject", true)],
        ))
        .unwrap();
    let health = library.health().unwrap();
    assert_eq!((health.debates, health.labels), (2, 1));
    assert!(library.holds("/d/a").unwrap());
    assert!(!library.holds("/d/zzz").unwrap());
}
