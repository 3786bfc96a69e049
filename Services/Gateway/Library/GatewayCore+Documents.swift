import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC
import FoyerWire
import NIOCore

extension GatewayCore {
    func registerDocuments(on router: inout RPCRouter) {
        router.register(GatewayMethods.putDocument) { request, context in
            let caller = try await self.authenticate(request.accessToken, context: context)
            return try await self.put(
                caller: caller,
                collection: request.collection,
                key: request.key,
                value: request.value,
                expectedVersion: request.expectedVersion,
                idempotencyKey: request.idempotencyKey,
                options: CallOptions(deadline: context.deadline)
            )
        }
        router.register(GatewayMethods.getDocument) { request, context in
            let caller = try await self.authenticate(request.accessToken, context: context)
            return try await self.userData.call(
                UserDataMethods.get,
                GetDocumentRequest(uid: caller.uid, collection: request.collection, key: request.key),
                options: CallOptions(deadline: context.deadline)
            )
        }
        router.register(GatewayMethods.listDocuments) { request, context in
            let caller = try await self.authenticate(request.accessToken, context: context)
            return try await self.userData.call(
                UserDataMethods.list,
                ListDocumentsRequest(
                    uid: caller.uid,
                    collection: request.collection,
                    cursor: request.cursor,
                    pageSize: request.pageSize
                ),
                options: CallOptions(deadline: context.deadline)
            )
        }
        router.register(GatewayMethods.deleteDocument) { request, context in
            let caller = try await self.authenticate(request.accessToken, context: context)
            return try await self.delete(
                caller: caller,
                collection: request.collection,
                key: request.key,
                options: CallOptions(deadline: context.deadline)
            )
        }
        router.register(GatewayMethods.exportDocuments) { request, context in
            let caller = try await self.authenticate(request.accessToken, context: context)
            return try await self.userData.call(
                UserDataMethods.export,
                ExportDocumentsRequest(uid: caller.uid, cursor: request.cursor, pageSize: request.pageSize),
                options: CallOptions(deadline: context.deadline)
            )
        }
        router.register(GatewayMethods.importDocuments) { request, context in
            try await self.importDocuments(request, context: context)
        }
    }

    /// Writes a document, charging the quota for what the write adds: a new document takes one `documents`, and
    /// any write takes the bytes it adds to `bytes` (its size, or for a rewrite the growth over the version it
    /// replaces), before it is made; a rewrite that shrinks the document gives the difference back after it. The
    /// charges are given back if the write fails. Deleting a document gives its share back (`delete`).
    ///
    /// The write is pinned to the version the charge was computed against (0: create only), so two writes racing
    /// on one key cannot both be charged as the first: the loser gets `version-mismatch` and, unless the client
    /// asked for a version itself, reads again and is charged against the new version (at most `putAttempts`
    /// times).
    func put(
        caller: Caller,
        collection: String,
        key: String,
        value: ByteBuffer,
        expectedVersion: UInt64?,
        idempotencyKey: String,
        options: CallOptions
    ) async throws -> PutDocumentResponse {
        for attempt in 1...Self.putAttempts {
            let current = try await userData.call(
                UserDataMethods.get,
                GetDocumentRequest(uid: caller.uid, collection: collection, key: key),
                options: options
            ).document
            let pinned = current?.version ?? 0
            let write = PutDocumentRequest(
                uid: caller.uid,
                collection: collection,
                key: key,
                value: value,
                expectedVersion: expectedVersion ?? pinned
            )
            guard expectedVersion == nil || expectedVersion == pinned else {
                // Not at the version the client expects: user-data answers the mismatch with the current version.
                return try await userData.call(UserDataMethods.put, write, options: options)
            }
            let oldBytes = current?.value.readableBytes ?? 0
            // Fresh keys for each attempt: what keeps a retried write from counting twice is the pinned version
            // (a retry after a lost answer finds its own write and adds nothing), and a refunded key could not be
            // consumed again. The keys still make the gateway's own retries of one consume count once.
            let keys = QuotaKeys(idempotencyKey: "\(idempotencyKey)#\(UUID().uuidString)")
            // The keys whose consume was sent (a failed one may still have counted): what a failure gives back.
            var charged: [String] = []
            if current == nil {
                try await consume(
                    uid: caller.uid,
                    counter: configuration.documentsCounter,
                    amount: 1,
                    key: keys.document,
                    options: options
                )
                charged.append(keys.document)
            }
            do {
                if value.readableBytes > oldBytes {
                    charged.append(keys.bytes)
                    try await consume(
                        uid: caller.uid,
                        counter: configuration.bytesCounter,
                        amount: Int64(value.readableBytes - oldBytes),
                        key: keys.bytes,
                        options: options
                    )
                }
                let answer = try await userData.call(UserDataMethods.put, write, options: options)
                if let current, value.readableBytes < oldBytes {
                    // Once per replaced version, like a delete's release.
                    let releaseKey =
                        "put:"
                        + QuotaKeys.hex(
                            "\(collection)\u{0}\(key)\u{0}\(current.version)\u{0}\(current.updatedAtMicroseconds)"
                        )
                    await release(
                        uid: caller.uid,
                        counter: configuration.bytesCounter,
                        amount: UInt64(oldBytes - value.readableBytes),
                        key: releaseKey,
                        options: options
                    )
                }
                return answer
            } catch let error as RPCError
                where error.status == UserDataStatus.versionMismatch && expectedVersion == nil
                && attempt < Self.putAttempts
            {
                await refund(uid: caller.uid, keys: charged, options: options)
            } catch {
                await refund(uid: caller.uid, keys: charged, options: options)
                throw error
            }
        }
        preconditionFailure("the last attempt returns or throws")
    }

    /// Reads and pinned writes a put tries before a concurrent writer's `version-mismatch` is the answer.
    static let putAttempts = 5

    /// Deletes a document and gives back the quota it took (one document and its size in bytes).
    func delete(
        caller: Caller,
        collection: String,
        key: String,
        options: CallOptions
    ) async throws -> DeleteDocumentResponse {
        let existing = try await userData.call(
            UserDataMethods.get,
            GetDocumentRequest(uid: caller.uid, collection: collection, key: key),
            options: options
        )
        guard let document = existing.document else { return DeleteDocumentResponse(deleted: false) }
        let answer = try await userData.call(
            UserDataMethods.delete,
            DeleteDocumentRequest(uid: caller.uid, collection: collection, key: key, expectedVersion: document.version),
            options: options
        )
        guard answer.deleted else { return answer }
        // One release per deleted version of the document: a repeated delete finds nothing and releases nothing.
        let releaseKey =
            "del:"
            + QuotaKeys.hex("\(collection)\u{0}\(key)\u{0}\(document.version)\u{0}\(document.updatedAtMicroseconds)")
        await release(
            uid: caller.uid,
            counter: configuration.documentsCounter,
            amount: 1,
            key: releaseKey + ":d",
            options: options
        )
        if document.value.readableBytes > 0 {
            await release(
                uid: caller.uid,
                counter: configuration.bytesCounter,
                amount: UInt64(document.value.readableBytes),
                key: releaseKey + ":b",
                options: options
            )
        }
        return answer
    }

    /// Many documents at once: the `import` feature, which the guest plan leaves off.
    func importDocuments(_ request: GatewayImportRequest, context: RPCContext) async throws -> ImportResponse {
        let caller = try await authenticate(request.accessToken, context: context)
        let options = CallOptions(deadline: context.deadline)
        let feature = try await guestQuota.call(
            GuestQuotaMethods.feature,
            FeatureCheckRequest(uid: caller.uid, feature: configuration.importFeature),
            options: options
        )
        guard feature.enabled else {
            throw RPCError(
                GatewayStatus.membersOnly,
                "importing is for permanent accounts; link a credential to unlock it"
            )
        }
        for document in request.documents {
            _ = try await put(
                caller: caller,
                collection: request.collection,
                key: document.key,
                value: document.value,
                expectedVersion: nil,
                idempotencyKey: "\(request.idempotencyKey)/\(document.key)",
                options: options
            )
        }
        return ImportResponse(written: UInt64(request.documents.count))
    }

    private func consume(uid: String, counter: String, amount: Int64, key: String, options: CallOptions) async throws {
        _ = try await guestQuota.call(
            GuestQuotaMethods.consume,
            ConsumeRequest(uid: uid, counter: counter, amount: amount, idempotencyKey: key),
            options: options
        )
    }

    private func refund(uid: String, keys: [String], options: CallOptions) async {
        for key in keys {
            do {
                _ = try await guestQuota.call(
                    GuestQuotaMethods.refund,
                    RefundRequest(uid: uid, idempotencyKey: key),
                    options: options
                )
            } catch {
                logger.warning("quota refund failed", metadata: ["user.uid": "\(uid)", "error": "\(error)"])
            }
        }
    }

    private func release(uid: String, counter: String, amount: UInt64, key: String, options: CallOptions) async {
        do {
            _ = try await guestQuota.call(
                GuestQuotaMethods.release,
                ReleaseRequest(uid: uid, counter: counter, amount: amount, idempotencyKey: key),
                options: options
            )
        } catch {
            logger.warning("quota release failed", metadata: ["user.uid": "\(uid)", "error": "\(error)"])
        }
    }
}

/// The quota idempotency keys of one attempt at a write (hashed, so they stay short and printable whatever the
/// client sent).
struct QuotaKeys {
    let document: String
    let bytes: String

    init(idempotencyKey: String) {
        let hash = Self.hex(idempotencyKey)
        document = "put-doc:" + hash
        bytes = "put-bytes:" + hash
    }

    static func hex(_ text: String) -> String {
        SHA256.hash(Array(text.utf8)).map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 2 ? digits : "0" + digits
        }.joined()
    }
}
