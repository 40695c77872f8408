import DeckCommandLine
import Foundation
import Testing

@testable import MenuDeckCLI

/// `validate --format json`: one document with every input, error and warning, each error with
/// its file, line, column and field, and the exit code the text form would give.
@Suite struct CLIValidateJSONTests {
  static func document(_ r: CLIRun) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(r.stdoutBytes)) as? [String: Any])
  }

  @Test func theBundledInputsAreValid() throws {
    let r = CLIRun(["validate", "--format", "json"])
    #expect(r.code == .success, "\(r.stderr)")
    let json = try Self.document(r)
    #expect(json["valid"] as? Bool == true)
    #expect(json["exit_code"] as? Int == 0)
    let inputs = try #require(json["inputs"] as? [[String: String]])
    #expect(
      inputs.map { $0["input"] ?? "" } == ["config", "catalog", "users", "strategy", "history"])
    #expect(inputs[1]["status"]?.hasPrefix("109 items") == true)
    #expect((json["errors"] as? [Any])?.isEmpty == true)
    // The text form is unchanged.
    #expect(CLIRun(["validate"]).stdout.hasSuffix("valid\n"))
    #expect(CLIRun(["validate", "--format", "text"]).stdout == CLIRun(["validate"]).stdout)
  }

  @Test func aBadLineIsAnErrorWithItsLocation() throws {
    let dir = try TempDir("menudeck-validate-json")
    try dir.write(
      "bad.csv",
      "user,item,swipe,at\nu1,nosuch,right,2026-11-01T12:00:00Z\n"
        + "u1,gyudon,sideways,2026-11-01T12:00:00Z\n")
    let r = CLIRun(
      [
        "validate", "--config", "\(CLITest.repoRoot)/Config/menudeck.json", "--history",
        "bad.csv", "--format", "json",
      ], in: dir.path)
    #expect(r.code == .dataError)
    let json = try Self.document(r)
    #expect(json["valid"] as? Bool == false)
    #expect(json["exit_code"] as? Int == 65)
    let errors = try #require(json["errors"] as? [[String: Any]])
    #expect(errors.count == 1)
    #expect(errors.first?["file"] as? String == "bad.csv")
    #expect(errors.first?["line"] as? Int == 3)
    #expect(errors.first?["column"] as? Int == 11)
    #expect(errors.first?["field"] as? String == "swipe")
    #expect(errors.first?["code"] as? String == "malformed_input")
    #expect(errors.first?["exit_code"] as? Int == 65)
    #expect(
      (errors.first?["message"] as? String)?.hasPrefix("'sideways' is not right or left") == true)
    let warnings = try #require(json["warnings"] as? [[String: Any]])
    #expect((warnings.first?["message"] as? String)?.contains("'nosuch'") == true)
    #expect(warnings.first?["code"] as? String == "validation_warning")
    #expect(warnings.first?["file"] as? String == "bad.csv")
    // The line of the first event naming a dish not in the catalog.
    #expect(warnings.first?["line"] as? Int == 2)
    // With --strict and only the warning, exit 1 in both forms.
    try dir.write("warn.csv", "user,item,swipe,at\nu1,nosuch,right,2026-11-01T12:00:00Z\n")
    let strict = CLIRun(
      [
        "validate", "--config", "\(CLITest.repoRoot)/Config/menudeck.json", "--history",
        "warn.csv", "--strict", "--format", "json",
      ], in: dir.path)
    #expect(strict.code == .failure)
    #expect(try Self.document(strict)["exit_code"] as? Int == 1)
  }

  /// A warning has its code, and its file: a diner's unknown allergen is in the users file.
  @Test func aWarningHasItsCodeAndFile() throws {
    let dir = try TempDir("menudeck-validate-json")
    try dir.write("users.json", #"[{"id": "u1", "allergens": ["peanuts"]}]"#)
    let r = CLIRun(
      [
        "validate", "--config", "\(CLITest.repoRoot)/Config/menudeck.json", "--users",
        "users.json", "--format", "json",
      ], in: dir.path)
    #expect(r.code == .success, "\(r.stderr)")
    let warnings = try #require(try Self.document(r)["warnings"] as? [[String: Any]])
    #expect(warnings.count == 1)
    #expect(warnings.first?["code"] as? String == "validation_warning")
    #expect(warnings.first?["file"] as? String == "users.json")
    #expect(warnings.first?["line"] is NSNull, "about the whole file")
    #expect((warnings.first?["message"] as? String)?.contains("'peanuts'") == true)
    // The same code and file on stderr.
    let stderr = CLIRun(
      [
        "validate", "--config", "\(CLITest.repoRoot)/Config/menudeck.json", "--users",
        "users.json", "--log-format", "json",
      ], in: dir.path)
    let line = try #require(try CLIDiagnosticsTests.objects(stderr.stderr).first)
    #expect(CLIDiagnosticsTests.string(line, "code") == "validation_warning")
    #expect(CLIDiagnosticsTests.string(line, "file") == "users.json")
  }

  @Test func aConfigErrorHasItsLineAndColumn() throws {
    let dir = try TempDir("menudeck-validate-json")
    try dir.write(
      "c.json",
      "{\"catalog\": \"\(CLITest.repoRoot)/Data/catalog.json\",\n \"deck\": {\"size\": \"ten\"}}\n")
    let r = CLIRun(["validate", "--config", "c.json", "--format", "json"], in: dir.path)
    #expect(r.code == .dataError)
    let errors = try #require(try Self.document(r)["errors"] as? [[String: Any]])
    #expect(errors.first?["line"] as? Int == 2)
    #expect(errors.first?["column"] as? Int == 19)
    #expect(errors.first?["field"] is NSNull)
  }
}
