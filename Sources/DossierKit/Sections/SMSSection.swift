import Foundation
import SecureSMS

/// The `sms` section: glue between the SecureSMS core and the renderer.
///
/// Placeholder until the SecureSMS issue lands: it accepts no configuration yet.
public struct SMSSection: Section {
    public static let key = "sms"
    public static let title = "SecureSMS keystore"

    public init(config: SectionConfig, project: Project) throws {
        throw config.error(nil, "the sms section is not implemented yet")
    }

    public func units() throws -> [SectionUnit] { [] }

    public func build(unit: SectionUnit, context: SectionContext) async throws -> UnitResult { UnitResult() }

    public func summarize(records: [UnitRecord], context: SectionContext) async throws -> UnitResult { UnitResult() }
}
