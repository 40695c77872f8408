import DeckBase

/// One input a run read: its role (`config`, `catalog`, `users`, `history` for a swipe log,
/// `snapshot` for a history snapshot, `policy`, `run`, ...), its path as given (standard input
/// as `<stdin>`) and the hex SHA-256 of the bytes read.
package struct RunInput: Sendable, Equatable {
  package var role: String
  package var path: String
  package var sha256: String

  package init(role: String, path: String, sha256: String) {
    self.role = role
    self.path = path
    self.sha256 = sha256
  }

  /// Writes `inputs` as the next value of `w`: an array of `{"role","path","sha256"}` objects,
  /// as a run record and a deck's run header list them.
  package static func write(_ inputs: [RunInput], to w: inout JSONWriter) {
    w.arrayOfObjects(inputs) { w, input in
      w.field("role", input.role)
      w.field("path", input.path)
      w.field("sha256", input.sha256)
    }
  }
}

/// What any run was made from, written as the `run` object of a command's JSON document and in
/// the HTML report's footer, so that an output can be traced to its exact inputs: the version,
/// the command, the command line exactly as given (the program name first) and every input read,
/// in the order read.
package struct RunRecord: Sendable, Equatable {
  package var version: String
  /// The command's name: `stats`, `compare`, ...
  package var command: String
  package var arguments: [String]
  package var inputs: [RunInput]
  /// What else decides the output and is not in an input file (a simulation's seed, start and
  /// days, ...): names and values already written as JSON text, in order.
  package var settings: [Setting] = []

  /// One setting of a run: its name and its value as JSON text.
  package struct Setting: Sendable, Equatable {
    package var name: String
    package var json: String

    package init(_ name: String, json: String) {
      self.name = name
      self.json = json
    }

    /// A setting whose value `write` writes.
    package init(_ name: String, _ write: (inout JSONWriter) -> Void) {
      self.init(name, json: JSONWriter.text(write))
    }
  }

  package init(version: String, command: String, arguments: [String], inputs: [RunInput]) {
    self.version = version
    self.command = command
    self.arguments = arguments
    self.inputs = inputs
  }

  /// `{"version":..,"command":..,<settings>,"arguments":[..],"inputs":[{"role","path","sha256"}
  /// ..]}` on one line, the fields in that order.
  package func json() -> String {
    var w = JSONWriter()
    write(to: &w)
    return w.text
  }

  /// Writes `json()` as the next value of `w` (the `run` object of a document).
  package func write(to w: inout JSONWriter) {
    w.beginObject()
    w.field("version", version)
    w.field("command", command)
    // A setting's value was written by a JSONWriter of its own (RunRecords.setting).
    for setting in settings {
      w.key(setting.name)
      w.fragment(setting.json)
    }
    w.key("arguments")
    w.strings(arguments)
    w.key("inputs")
    RunInput.write(inputs, to: &w)
    w.endObject()
  }
}
