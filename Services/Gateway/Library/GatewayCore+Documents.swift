import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC
import FoyerWire
import NIOCore

extension GatewayCore {
    func registerDocuments(on router: inout RPCRouter) {
        serve(GatewayMethods.putDocument, on: &router) { request, caller, options in
            try await self.put(
                caller: caller,
                collection: request.collection,
                key: request.key,
                value: request.value,
                expectedVersion: request.expectedVersion,
                idempotencyKey: request.idempotencyKey,
                options: options
            )
        }
        serve(GatewayMethods.getDocument, on: &router) { request, caller, options in
            try await self.userData.call(
                UserDataMethods.get,
                GetDocumentRequest(uid: caller.uid, collection: request.collection, key: request.key),
                options: options
            )
        }
        serve(GatewayMethods.listDocuments, on: &router) { request, caller, options in
            try await self.userData.call(
                UserDataMethods.list,
                ListDocumentsRequest(
                    uid: caller.uid,
                    collection: request.collection,
                    cursor: request.cursor,
                    pageSize: request.pageSize
                ),
                options: options
            )
        }
        serve(GatewayMethods.deleteDocument, on: &router) { request, caller, options in
            try await self.delete(caller: caller, collection: request.collection, key: request.key, options: options)
        }
        serve(GatewayMethods.exportDocuments, on: &router) { request, caller, options in
            try await self.userData.call(
                UserDataMethods.export,
                ExportDocumentsRequest(uid: caller.uid, cursor: request.cursor, pageSize: request.pageSize),
                options: options
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
    /// Once per idempotency key: user-data writes under an op derived from the key (`putOnce`) and remembers the
    /// result, and the gateway asks for it (`lookupPut`) before it charges anything. So a retry of a put that was
    /// made answers the first result (version and time) without writing or charging again, even if the document
    /// changed since; a concurrent duplicate that loses the race gives its charges back and answers the winner's
    /// result. The same key with another request (collection, key, value or expected version) is
    /// `operation-reused`.
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
        let once = PutOnceKeys(
            idempotencyKey: idempotencyKey,
            collection: collection,
            key: key,
            value: value,
            expectedVersion: expectedVersion
        )
        for attempt in 1...Self.putAttempts {
            let looked = try await operationReusedIfConflict {
                try await userData.call(
                    UserDataMethods.lookupPut,
                    LookupPutRequest(
                        uid: caller.uid,
                        collection: collection,
                        key: key,
                        op: once.op,
                        requestDigest: once.digest
                    ),
                    options: options
                )
            }
            if let recorded = looked.recorded { return recorded }
            let current = looked.document
            let pinned = current?.version ?? 0
            // Fresh ids for each attempt: what keeps a retried write from counting twice is the op (and the pinned
            // version); a refunded quota key could not be consumed again. The keys still make the gateway's own
            // retries of one consume count once, and user-data's answer tells this attempt's write from another's.
            let attemptID = UUID().uuidString
            let write = PutOnceRequest(
                uid: caller.uid,
                collection: collection,
                key: key,
                value: value,
                expectedVersion: expectedVersion ?? pinned,
                op: once.op,
                attempt: attemptID,
                requestDigest: once.digest
            )
            guard expectedVersion == nil || expectedVersion == pinned else {
                // Not at the version the client expects: user-data answers the mismatch with the current version.
                return try await putOnce(write, options: options).result
            }
            let oldBytes = current?.value.readableBytes ?? 0
            let keys = QuotaKeys(idempotencyKey: "\(idempotencyKey)#\(attemptID)")
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
                let answer = try await putOnce(write, options: options)
                if answer.replayed {
                    // A concurrent call with the same key wrote first (and paid): this one wrote nothing.
                    await refund(uid: caller.uid, keys: charged, options: options)
                    return answer.result
                }
                if let current, value.readableBytes < oldBytes {
                    await releaseShrink(caller: caller, replaced: current, by: value, options: options)
                }
                return answer.result
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

    /// Gives back the bytes a rewrite freed, once per replaced version (like a delete's release).
    private func releaseShrink(
        caller: Caller,
        replaced current: StoredDocument,
        by value: ByteBuffer,
        options: CallOptions
    ) async {
        let releaseKey =
            "put:"
            + QuotaKeys.hex(
                "\(current.collection)\u{0}\(current.key)\u{0}\(current.version)\u{0}\(current.updatedAtMicroseconds)"
            )
        await release(
            uid: caller.uid,
            counter: configuration.bytesCounter,
            amount: UInt64(current.value.readableBytes - value.readableBytes),
            key: releaseKey,
            options: options
        )
    }

    /// user-data's `putOnce`, its `op-conflict` answered as the gateway's `operation-reused`.
    private func putOnce(_ request: PutOnceRequest, options: CallOptions) async throws -> PutOnceResponse {
        try await operationReusedIfConflict {
            try await userData.call(UserDataMethods.putOnce, request, options: options)
        }
    }

    /// Runs a user-data call about a put op, turning its `op-conflict` (the idempotency key was used for another
    /// write) into `operation-reused`.
    private func operationReusedIfConflict<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as RPCError where error.status == UserDataStatus.opConflict {
            throw RPCError(GatewayStatus.operationReused, "this idempotency key was used for a different write")
        }
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

/// user-data's op of a put and the digest of what the client asked, both derived from the client's request: the
/// same key and request give the same op and digest on every replica.
struct PutOnceKeys {
    /// `put-` and the SHA-256 of the idempotency key in hex: printable, 68 bytes, whatever the client sent.
    let op: String
    /// SHA-256 of the collection, key, value and expected version as the client sent them.
    let digest: [UInt8]

    init(idempotencyKey: String, collection: String, key: String, value: ByteBuffer, expectedVersion: UInt64?) {
        op = "put-" + QuotaKeys.hex(idempotencyKey)
        var request = ByteBuffer()
        request.writeLengthPrefixedString(collection)
        request.writeLengthPrefixedString(key)
        request.writeLengthPrefixedBuffer(value)
        request.writeOptional(expectedVersion) { $0.writeVarint($1) }
        digest = SHA256.hash(Array(request.readableBytesView))
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
