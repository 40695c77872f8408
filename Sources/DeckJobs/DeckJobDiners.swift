import DeckBase
import DeckCore
import DeckIO

/// Which diners a deck run builds for.
package enum DinerChoice: Sendable, Equatable {
  /// The users file's diners and everyone in the history.
  case everyone
  /// `--user`: these ids, in the order given.
  case ids([String])
  /// `--diners FILE`: exactly the diners the file lists.
  case listed(String)
}

extension DeckJob {
  /// The most ids a `--diners` file may list, the longest id, and the largest file (1 GiB).
  static let maxListedDiners = 50_000_000
  static let maxDinerIDBytes = 4096
  static let maxDinersFileBytes = 1 << 30

  /// The diners to build decks for, sorted by id bytes, and the `--diners` file as a run input
  /// when one was read. A diner is the bytes of its id (`IDKey`): a users file's "caf\u{E9}"
  /// is not the history's "cafe\u{301}".
  static func diners(
    _ choice: DinerChoice, shard: DinerShard?, users: [UserProfile], history: History,
    _ io: JobIO
  ) throws -> (diners: [UserProfile], listed: RunInput?) {
    // DeckCore's byte-string table, not String's per-process hashing: 100,000 diners are
    // hashed here on every run.
    if case .everyone = choice {
      return (everyone(shard: shard, users: users, history: history), nil)
    }
    // For `--user` only the profiles of the ids asked for are kept: one look-up per profile in
    // a table of a few ids.
    var wanted: IDSet?
    if case .ids(let requested) = choice { wanted = IDSet(requested) }
    let kept = wanted.map { set in users.filter { set.contains($0.id) } } ?? users
    let profiles = IDMap(kept.map { ($0.id, $0) })
    var ids: [String] = []
    var listed: RunInput?
    switch choice {
    case .listed(let file):
      let (list, hash) = try listedDiners(file, io)
      ids = list
      listed = RunInput(role: "diners", path: file, sha256: hash)
    case .ids(let requested):
      var given = IDSet()
      for id in requested where given.insert(id) {
        guard !id.isEmpty else {
          throw JobError.usage("'--user' needs a diner id, got an empty string")
        }
        if profiles[id] == nil && history.users[id] == nil { warnUnknown(id, io) }
        ids.append(id)
      }
    case .everyone:
      break  // returned above
    }
    if let shard {
      ids = ids.filter { shard.contains($0) }
    }
    ids.sort(by: IDKey.precedes)
    return (ids.map { profiles[$0] ?? UserProfile(id: $0) }, listed)
  }

  /// Every diner of the users file (its first profile of an id) and of the history (a bare
  /// profile), each once, in the shard, in ascending id order: the profiles themselves, with
  /// no table from id to profile, and no sort when the ids come in order already (a users file
  /// written in id order).
  private static func everyone(shard: DinerShard?, users: [UserProfile], history: History)
    -> [UserProfile]
  {
    var seen = IDSet(capacity: users.count + history.users.count)
    var out: [UserProfile] = []
    out.reserveCapacity(users.count + history.users.count)
    for u in users where seen.insert(u.id) && shard?.contains(u.id) != false { out.append(u) }
    for user in history.users.values
    where seen.insert(user.id) && shard?.contains(user.id) != false {
      out.append(UserProfile(id: user.id))
    }
    let inOrder = out.indices.dropFirst().allSatisfy { IDKey.precedes(out[$0 - 1].id, out[$0].id) }
    if inOrder { return out }
    // The ids are distinct: an order of positions is the order of the profiles.
    let order = out.indices.sorted { IDKey.precedes(out[$0].id, out[$1].id) }
    return order.map { out[$0] }
  }
  /// The warning about a diner that neither the users file nor the history knows.
  static func warnUnknown(_ id: String, _ io: JobIO) {
    io.diagnostics.warning(
      "user '\(id)' is in neither the users file nor the history; building a first-visit deck",
      code: "unknown_diner", location: nil)
  }

  /// The ids of a `--diners` file: one per line (LF or CRLF), none empty or repeated, each at
  /// most `maxDinerIDBytes` bytes of UTF-8; a final line break is optional.
  static func listedDiners(_ file: String, _ io: JobIO) throws -> ([String], String) {
    let bytes = try Paths.using(file, io) { opened throws(DeckIOError) in
      try TextInput.readBytes(path: opened, what: "diners file", maxBytes: maxDinersFileBytes)
    }
    var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    if lines.last?.isEmpty == true { lines.removeLast() }
    guard lines.count <= maxListedDiners else {
      throw JobError(.dataError, "\(file): more than \(maxListedDiners) diners; split the list")
    }
    var ids: [String] = []
    ids.reserveCapacity(lines.count)
    var seen = IDMap<Int>()
    for (k, raw) in lines.enumerated() {
      var line = raw
      if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
      let at = "\(file):\(k + 1)"
      guard !line.isEmpty else {
        throw JobError(.dataError, "\(at): empty line; give one diner id per line")
      }
      guard line.count <= maxDinerIDBytes else {
        throw JobError(
          .dataError,
          "\(at): a diner id of more than \(maxDinerIDBytes) bytes; is this a list of diner ids?")
      }
      guard let id = String(validating: line, as: UTF8.self) else {
        throw JobError(.dataError, "\(at): not UTF-8; diner ids are UTF-8 text")
      }
      if let first = seen[id] {
        throw JobError(
          .dataError, "\(at): diner '\(id)' is listed twice (first at line \(first)); list it once")
      }
      seen.insert(id, k + 1)
      ids.append(id)
    }
    return (ids, ContentHash.sha256(bytes))
  }
}
