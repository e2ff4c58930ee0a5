import Foundation
import Testing
@testable import DossierKit

// The lease a publish holds in its dirty marker (docs/publish.md, "The lease").

@Test func aLeaseOfARunningPublishBlocksUntilItExpires() {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let mine = PublishLease.mine(now: now)
    #expect(mine.pid == ProcessInfo.processInfo.processIdentifier && mine.machine == MachineID.current)
    #expect(mine.blocks(now: now))                                              // this process runs
    #expect(mine.blocks(now: now.addingTimeInterval(PublishLease.seconds - 1)))
    #expect(!mine.blocks(now: now.addingTimeInterval(PublishLease.seconds + 1)))  // expired
    var other = mine
    other.machine = String(repeating: "0", count: 32)
    other.pid = 999_999_999                                                     // another machine's pid
    #expect(other.blocks(now: now))
}

@Test func aLeaseOfAStoppedPublishOnThisMachineDoesNotBlock() {
    var dead = PublishLease.mine(now: Date())
    dead.pid = 999_999_999                                    // no such process
    #expect(!PublishLease.isRunning(dead.pid))
    #expect(!dead.blocks())
}

@Test func theLeaseTravelsInTheDirtyMarkerOnly() throws {
    var site = RemoteSite(files: [], etags: [:], dirty: true)
    site.lease = PublishLease.mine(now: Date(timeIntervalSince1970: 1_800_000_000))
    let bytes = try site.encoded()
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(text.contains("\"expires\" : \"2027-01-15T08:10:00Z\""))
    #expect(try RemoteSite.decode(bytes, shown: "m").lease == site.lease)
    site.dirty = false
    #expect(!String(decoding: try site.encoded(), as: UTF8.self).contains("lease"))
}
