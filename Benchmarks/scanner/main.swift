import Foundation
import OldReader
import NewReader
let args = CommandLine.arguments
let which = args[1]
let dir = args[2]
let n = Int(args[3])!
let reps = args.count > 4 ? Int(args[4])! : 1
let names = try FileManager.default.contentsOfDirectory(atPath: dir)
    .filter { $0.hasSuffix(".jsonl") }.sorted().prefix(n)
let files = try names.map { [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/" + $0))) }
var total = 0
for _ in 0..<reps {
    for b in files { total &+= which == "old" ? OldReader.scanAll(b, plain: false)
        : NewReader.scanAll(b, plain: which == "plain") }
}
print(which, total)
