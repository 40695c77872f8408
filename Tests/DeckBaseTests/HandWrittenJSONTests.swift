import Foundation
import Testing

/// JSON is written only through DeckBase's `JSONWriter` (docs/architecture.md): this scans every
/// Swift file under `Sources/` for JSON text written by hand and fails naming `file:line`.
///
/// A line counts as hand-written JSON when, outside a `//` comment line, it holds:
/// 1. an escaped-quote key and its colon in a string literal: `\"name\":` or `\"name\": `;
/// 2. a string literal that opens with JSON punctuation before an escaped quote: `"{\"`,
///    `"[\"` or `",\"` (an object, an array or the next member, by hand);
/// 3. a string literal that opens by closing a key: `"\":`;
/// 4. a key line of a multi-line string literal with an interpolated value:
///    `"name": \(...)`;
/// 5. a string escaped as JSON outside DeckBase and glued to a colon: `JSONText.string(..) +
///    ":"` and the like.
/// Messages for people that quote JSON are JSON text too, by these rules: they are the
/// allow-list, each with its reason.
@Suite struct HandWrittenJSONTests {
  /// What may stay, each with its reason: (file under Sources/, a piece of the line, why).
  /// Keep it short: every entry is JSON text outside the one writer.
  static let allowed: [(file: String, piece: String, reason: String)] = [
    // Messages that show the user what JSON to write: prose for people, not output.
    (
      "DeckIO/EventReaderJSON.swift", #"one object like {\"user\""#,
      "an error message showing the expected shape of a log line"
    ),
    (
      "DeckIO/PolicyFileReader.swift", #"such as {\"deck\""#,
      "an error message showing the expected shape of a policy line"
    ),
    (
      "DeckIO/PolicyFileReader.swift", #""\"probability\":0.5}""#,
      "the same message, its second line"
    ),
    (
      "MenuDeckCLI/CompareOptions.swift", #"whole decks {\"diner\""#,
      "help text naming the fields of a slate policy line"
    ),
    (
      "MenuDeckCLI/TuneCommand.swift", #"with \"include\": [\"PATH\"]"#,
      "a note telling the user what to write in a config"
    ),
    (
      "DeckPlugins/PluginReplies.swift", #"declare \"minor\": 1 there"#,
      "an error message telling a plugin's author what to send"
    ),
    (
      "DeckPlugins/PluginReplies.swift", #"(it has no \"want_policy\": true)"#,
      "an error message quoting the protocol's field"
    ),
    (
      "DeckPlugins/PluginReplies.swift", #"{\"uniform\": true} for every order"#,
      "an error message telling a plugin's author what to send"
    ),
  ]

  static let rules: [(name: String, pattern: NSRegularExpression)] = [
    ("escaped key and colon", #"\\"[A-Za-z_][A-Za-z0-9_]*\\" ?:"#),
    ("JSON punctuation before an escaped quote", #""[{\[,]\\""#),
    ("a literal that closes a key", #""\\":"#),
    ("a key line with an interpolated value", #"^\s*"[A-Za-z_][A-Za-z0-9_]*": \\\("#),
    ("an escaped string glued to a colon", #"(JSONText\.string|appendJSONString)\(.*\+ ?": ?""#),
  ].map { ($0.0, try! NSRegularExpression(pattern: $0.1)) }

  static var sources: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Sources")
  }

  /// Every hand-written JSON line under `root`: "file:line: rule: text", with the allow-list's
  /// entries that matched.
  static func scan(_ root: URL) throws -> (found: [String], used: Set<Int>) {
    var found: [String] = []
    var used = Set<Int>()
    let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)!
      .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
      .sorted { $0.path < $1.path }
    for file in files {
      let relative = String(file.path.dropFirst(root.path.count + 1))
      let text = try String(contentsOf: file, encoding: .utf8)
      for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let line = String(line)
        if line.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
        let range = NSRange(line.startIndex..., in: line)
        guard
          let rule = rules.first(where: { $0.pattern.firstMatch(in: line, range: range) != nil })
        else { continue }
        if let k = allowed.firstIndex(where: { relative == $0.file && line.contains($0.piece) }) {
          used.insert(k)
          continue
        }
        found.append(
          "Sources/\(relative):\(n + 1): \(rule.name): "
            + line.trimmingCharacters(in: .whitespaces))
      }
    }
    return (found, used)
  }

  @Test func noHandWrittenJSONInSources() throws {
    let (found, used) = try Self.scan(Self.sources)
    #expect(
      found.isEmpty,
      """
      JSON text written by hand; write it with DeckBase's JSONWriter (docs/architecture.md) or, \
      if it is prose for people, add it to HandWrittenJSONTests.allowed with the reason:
      \(found.joined(separator: "\n"))
      """)
    // An entry that no longer matches anything is stale: remove it, so the list stays honest.
    let stale = Self.allowed.indices.filter { !used.contains($0) }.map {
      "\(Self.allowed[$0].file): \(Self.allowed[$0].piece)"
    }
    #expect(stale.isEmpty, "stale allow-list entries: \(stale)")
  }

  /// The rules find what they are meant to find, and leave plain text alone.
  @Test func rulesCatchHandWrittenJSON() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "handwritten-json-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let lines = [
      #"    out += "{\"user\":" + name"#,
      #"    s += ",\"" + key"#,
      #"    s += "\":" + value"#,
      #"      "catalog": \(JSONText.string(catalog)),"#,
      #"    s += JSONText.string(name) + ":" + value"#,
      #"    let fine = "a \"quoted\" word, and a colon: here""#,
      #"    // out += "{\"user\":" in a comment"#,
      #"    w.field("user", name)"#,
    ]
    try lines.joined(separator: "\n").write(
      to: dir.appendingPathComponent("Sample.swift"), atomically: true, encoding: .utf8)
    let (found, _) = try Self.scan(dir)
    #expect(found.map { String($0.split(separator: ":")[1]) } == ["1", "2", "3", "4", "5"])
  }
}
