import DeckBase
import DeckCore
import DeckIO
import DeckJobs

/// The history snapshot a config's "history" names, as `ingest` keeps it: the nightly job adds
/// yesterday's log to the snapshot that `deck` reads with the same config.
package enum ConfigSnapshot {
  /// The option name `Inputs.configFiles` gives the config's history files.
  package static let historyOption = "the config's \"history\""

  /// The snapshot of the config's history: the one entry that is a snapshot file, or that is
  /// missing and named `.snap`; nil when there is no config file or no such entry. A config
  /// that names several leaves the choice to `--into` (a usage error when it is not given).
  package static func find(_ config: MenuDeckConfig, _ io: JobIO, intoGiven: Bool) throws
    -> String?
  {
    guard !config.bytes.isEmpty else { return nil }
    let snapshots = config.history.filter { isSnapshot($0, io) }
    if snapshots.count > 1 && !intoGiven {
      throw JobError.usage(
        "the config \(config.path) names \(snapshots.count) snapshots in its \"history\" ("
          + snapshots.joined(separator: ", ") + "); give '--into' with the one to add the logs to")
    }
    return snapshots.count == 1 ? snapshots[0] : nil
  }

  /// Whether `path` is a snapshot file, or names one that is not there yet (`.snap`).
  package static func isSnapshot(_ path: String, _ io: JobIO) -> Bool {
    guard path != "-" else { return false }
    let opened = Paths.open(path, io)
    if FileSystem.kind(of: opened) == nil { return path.hasSuffix(".snap") }
    return SnapshotFile.isSnapshot(path: opened)
  }

  /// Whether `a` and `b` are one file: the same device and inode when both exist, else the same
  /// absolute path once `.` and `..` are resolved.
  package static func sameFile(_ a: String, _ b: String, _ io: JobIO) -> Bool {
    guard a != "-", b != "-" else { return false }
    if let x = FileIdentity(path: Paths.open(a, io)),
      let y = FileIdentity(path: Paths.open(b, io))
    {
      return x == y
    }
    return Paths.normalize(io.resolvePath(a)) == Paths.normalize(io.resolvePath(b))
  }

  /// Refuses a log to be added to the config's snapshot when the config's history also names it
  /// as a log of its own: `deck` reads both, and would count its swipes twice.
  package static func refuseConfigLogs(
    _ logs: [String], _ config: MenuDeckConfig, snapshot: String, _ io: JobIO
  ) throws {
    for log in logs where log != "-" {
      for entry in config.history where !sameFile(entry, snapshot, io) {
        guard let x = FileIdentity(path: Paths.open(log, io)),
          let y = FileIdentity(path: Paths.open(entry, io)), x == y
        else { continue }
        throw JobError(
          .usage,
          "'\(log)' is a log of the config's \"history\" (\(entry)), which 'deck' reads beside "
            + "the snapshot \(snapshot): adding it to the snapshot too would count its swipes "
            + "twice. Leave it out, or take it out of \(config.path)'s \"history\" first",
          code: "counted_twice")
      }
    }
  }

  /// Refuses to add logs to a snapshot that was read in another time zone or with another drag
  /// rule than this run's config: the swipe days (or directions) would disagree. Says what to
  /// give when the run has no config file at all (a cron job started outside the config's
  /// directory without `--config`).
  package static func checkReadings(
    _ snapshot: HistorySnapshot, _ request: IngestRequest
  ) throws {
    guard request.adding else { return }
    let config = request.config
    let noConfig = config.bytes.isEmpty
    let this =
      noConfig
      ? "this run has no config file (none was given, and Config/menudeck.json is not in the "
        + "current directory), so it"
      : "the config \(config.path)"
    if let zone = snapshot.timeZone, zone != config.timeZone {
      throw JobError(
        .dataError,
        "\(request.into): its swipes were read in time zone '\(zone)', but \(this) "
          + (noConfig ? "reads times in '\(config.timeZone)'" : "says '\(config.timeZone)'")
          + "; the swipe days would disagree. Give --config with the config that made the "
          + "snapshot (its \"time_zone\" is '\(zone)')"
          + (noConfig ? "" : ", or ingest every log again into a new snapshot"),
        code: "snapshot_mismatch")
    }
    if let rule = snapshot.dragRule, rule != config.dragRuleName {
      throw JobError(
        .dataError,
        "\(request.into): its drags were decided by the \(rule) rule, but \(this) "
          + (noConfig ? "uses" : "says") + " '\(config.dragRuleName)'; give --config with the "
          + "config that made the snapshot (its \"drag_rule\" is '\(rule)')"
          + (noConfig ? "" : ", or ingest every log again into a new snapshot"),
        code: "snapshot_mismatch")
    }
  }
}
