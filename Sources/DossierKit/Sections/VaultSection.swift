import Foundation
import Vault

/// The `vault` section: glue between the Vault core and the renderer.
///
/// Placeholder until the Vault issue lands: it accepts no configuration yet.
public struct VaultSection: Section {
    public static let key = "vault"
    public static let title = "Vault health"

    public init(config: SectionConfig, project: Project) throws {
        throw config.error(nil, "the vault section is not implemented yet")
    }

    public func units() throws -> [SectionUnit] { [] }

    public func build(unit: SectionUnit, context: SectionContext) async throws -> UnitResult { UnitResult() }

    public func summarize(records: [UnitRecord], context: SectionContext) async throws -> UnitResult { UnitResult() }
}
