public import FoyerWire

/// A gateway request that acts for a user: it carries the user's access token, and the gateway acts for the
/// token's subject once it has authenticated it.
public protocol UserRequest: WireMessage {
    var accessToken: String { get }
}

extension AuthenticatedRequest: UserRequest {}
extension OperationRequest: UserRequest {}
extension LinkRequest: UserRequest {}
extension ResolveConflictRequest: UserRequest {}
extension GatewayPutRequest: UserRequest {}
extension GatewayDocumentRequest: UserRequest {}
extension GatewayListRequest: UserRequest {}
extension GatewayExportRequest: UserRequest {}
extension GatewayImportRequest: UserRequest {}
extension GatewayFeatureRequest: UserRequest {}
extension GatewayCounterRequest: UserRequest {}
extension PasswordChangeRequest: UserRequest {}
extension UnlinkRequest: UserRequest {}
extension EmailChangeStartRequest: UserRequest {}
extension DeviceKeyRegisterRequest: UserRequest {}
