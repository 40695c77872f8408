import DeckCore
import DeckStrategies

/// The plugin protocol's version. A plugin states the version it speaks in its `describe`
/// reply; menudeck refuses any other. docs/plugins.md specifies every message.
package let pluginProtocolVersion = 1

/// The protocol's minor version that menudeck speaks: additions within version 1 that a plugin
/// opts into by declaring `"minor"` in its `describe` reply (absent = 0). Minor 1: a `rank`
/// message may carry `"want_policy": true` (only to a plugin of minor 1 or more), and a result
/// may carry `policy` (then) and `prefix_propensities`. A plugin that declares a later minor
/// than this is spoken to as minor 1.
package let pluginMinorVersion = 1

/// Messages menudeck writes to a plugin's stdin, one JSON object per line.
enum HostMessage {
  /// The first message: which protocol menudeck speaks and the plugin's configured name.
  case hello(name: String)
  /// Validated options (every declared option, defaults filled in) and the catalog.
  case start(options: [(String, OptionValue)], catalog: Catalog)
  /// Aggregated history: per-item counts, then `userBatches` `learn_users` lines.
  case learn(id: Int, full: Bool, history: History, users: Int, userBatches: Int)
  /// Per-diner records: (user id, that diner's records).
  case learnUsers(id: Int, users: [(String, UserHistory)])
  /// A batch of diners to rank; `wantPolicy` adds `"want_policy": true` (the evaluation asks
  /// for each diner's ranking distribution, to a plugin of minor version 1 or more).
  case rank(id: Int, batch: [ScoringContext], wantPolicy: Bool)
  /// The run is over; the plugin exits with status 0.
  case end

  /// The message as one line (with its newline). `ids` are the catalog's item ids as JSON
  /// strings, encoded once per run.
  func encode(ids: [[UInt8]]) -> [UInt8] {
    var w: PluginJSONWriter
    switch self {
    case .hello(let name):
      w = PluginJSONWriter()
      Self.hello(name: name, into: &w)
    case .start(let options, let catalog):
      w = PluginJSONWriter()
      Self.start(options: options, catalog: catalog, into: &w)
    case .learn(let id, let full, let history, let users, let userBatches):
      w = PluginJSONWriter()
      Self.learn(
        id: id, full: full, history: history, users: users, userBatches: userBatches, into: &w)
    case .learnUsers(let id, let users):
      w = PluginJSONWriter()
      Self.learnUsers(id: id, users: users, ids: ids, into: &w)
    case .rank(let id, let batch, let wantPolicy):
      // A rank line is the bulk of the traffic: room for a typical request per diner up front.
      w = PluginJSONWriter(capacity: 256 * batch.count)
      Self.rank(id: id, batch: batch, wantPolicy: wantPolicy, ids: ids, into: &w)
    case .end:
      w = PluginJSONWriter()
      w.raw("{\"type\":\"end\"}")
    }
    w.raw("\n")
    return w.bytes
  }

  private static func hello(name: String, into w: inout PluginJSONWriter) {
    w.raw("{\"type\":\"hello\",\"protocol\":")
    w.int(pluginProtocolVersion)
    w.raw(",\"minor\":")
    w.int(pluginMinorVersion)
    w.raw(",\"name\":")
    w.string(name)
    w.raw("}")
  }

  private static func start(
    options: [(String, OptionValue)], catalog: Catalog, into w: inout PluginJSONWriter
  ) {
    w.raw("{\"type\":\"start\",\"options\":{")
    for (k, (key, value)) in options.enumerated() {
      if k > 0 { w.raw(",") }
      w.string(key)
      w.raw(":")
      switch value {
      case .double(let v): w.double(v)
      case .int(let v): w.int(v)
      case .bool(let v): v ? w.raw("true") : w.raw("false")
      case .string(let v): w.string(v)
      }
    }
    w.raw("},\"catalog\":[")
    for (k, item) in catalog.items.enumerated() {
      if k > 0 { w.raw(",") }
      Self.item(item, into: &w)
    }
    w.raw("]}")
  }

  /// One catalog item of the `start` message.
  private static func item(_ item: MenuItem, into w: inout PluginJSONWriter) {
    w.raw("{\"id\":")
    w.string(item.id)
    w.raw(",\"name\":")
    w.string(item.name)
    w.raw(",\"category\":")
    w.string(item.category)
    w.raw(",\"tags\":")
    w.strings(item.tags)
    w.raw(",\"price\":")
    if let price = item.price { w.double(price) } else { w.raw("null") }
    w.raw(",\"allergens\":")
    w.strings(item.allergens)
    w.raw(",\"diets\":")
    w.strings(item.diets)
    w.raw("}")
  }

  private static func learn(
    id: Int, full: Bool, history: History, users: Int, userBatches: Int,
    into w: inout PluginJSONWriter
  ) {
    w.raw("{\"type\":\"learn\",\"id\":")
    w.int(id)
    w.raw(full ? ",\"full\":true" : ",\"full\":false")
    w.raw(",\"events\":")
    w.int(history.events)
    w.raw(",\"item_right\":[")
    for (k, v) in history.itemRight.enumerated() {
      if k > 0 { w.raw(",") }
      w.int(v)
    }
    w.raw("],\"item_left\":[")
    for (k, v) in history.itemLeft.enumerated() {
      if k > 0 { w.raw(",") }
      w.int(v)
    }
    w.raw("],\"users\":")
    w.int(users)
    w.raw(",\"user_batches\":")
    w.int(userBatches)
    w.raw("}")
  }

  private static func learnUsers(
    id: Int, users: [(String, UserHistory)], ids: [[UInt8]], into w: inout PluginJSONWriter
  ) {
    w.raw("{\"type\":\"learn_users\",\"id\":")
    w.int(id)
    w.raw(",\"users\":[")
    for (k, (user, history)) in users.enumerated() {
      if k > 0 { w.raw(",") }
      w.raw("[")
      w.string(user)
      w.raw(",")
      Self.records(history, ids: ids, into: &w)
      w.raw("]")
    }
    w.raw("]}")
  }

  private static func rank(
    id: Int, batch: [ScoringContext], wantPolicy: Bool, ids: [[UInt8]],
    into w: inout PluginJSONWriter
  ) {
    w.raw("{\"type\":\"rank\",\"id\":")
    w.int(id)
    if wantPolicy { w.raw(",\"want_policy\":true") }
    w.raw(",\"requests\":[")
    // Diners of a batch mostly share a day: its text is made once per run of equal days.
    var lastDate = Int32.min
    var dateText: [UInt8] = []
    for (k, context) in batch.enumerated() {
      if k > 0 { w.raw(",") }
      if context.date.daysSinceEpoch != lastDate {
        lastDate = context.date.daysSinceEpoch
        dateText = Array(context.date.description.utf8)
      }
      Self.request(context, dateText: dateText, ids: ids, into: &w)
    }
    w.raw("]}")
  }

  /// One diner's request of a `rank` message; `dateText` is its date, already formatted.
  private static func request(
    _ context: ScoringContext, dateText: [UInt8], ids: [[UInt8]], into w: inout PluginJSONWriter
  ) {
    w.raw("{\"user\":")
    w.string(context.user.id)
    w.raw(",\"diets\":")
    w.strings(context.user.diets)
    w.raw(",\"allergens\":")
    w.strings(context.user.allergens)
    w.raw(",\"disliked_categories\":")
    w.strings(context.user.dislikedCategories)
    w.raw(",\"date\":\"")
    w.bytes.append(contentsOf: dateText)
    w.raw("\",\"seed\":")
    w.int(context.seed)
    w.raw(",\"history\":")
    if let history = context.userHistory {
      Self.records(history, ids: ids, into: &w)
    } else {
      w.raw("[]")
    }
    w.raw(",\"candidates\":[")
    for (n, item) in context.candidates.enumerated() {
      if n > 0 { w.raw(",") }
      w.bytes.append(contentsOf: ids[Int(item)])
    }
    w.raw("]}")
  }

  /// `[[item, right, left, last_right, last_left], ...]`, dates as "YYYY-MM-DD" or null.
  private static func records(
    _ history: UserHistory, ids: [[UInt8]], into w: inout PluginJSONWriter
  ) {
    w.raw("[")
    for (k, r) in history.records.enumerated() {
      if k > 0 { w.raw(",") }
      w.raw("[")
      w.bytes.append(contentsOf: ids[Int(r.item)])
      w.raw(",")
      w.int(r.right)
      w.raw(",")
      w.int(r.left)
      w.raw(",")
      w.optionalDate(r.lastRightDay)
      w.raw(",")
      w.optionalDate(r.lastLeftDay)
      w.raw("]")
    }
    w.raw("]")
  }
}

/// What a plugin says about itself in its `describe` reply.
struct PluginDescription: Equatable {
  var protocolVersion: Int
  /// The minor version the plugin declares (`"minor"`, 0 when absent).
  var minorVersion: Int
  var identifier: String
  var summary: String
  var options: [OptionSpec]
  /// Whether the plugin wants per-diner records in `learn` (`learn_users` lines).
  var learnUsers: Bool
}
