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
            let answer = try await self.userData.call(
                UserDataMethods.get,
                GetDocumentRequest(uid: caller.uid, collection: request.collection, key: request.key),
                options: options
            )
            self.documents.note(
                answer.document.map(PutBase.init) ?? .absent,
                of: DocumentVersions.Key(uid: caller.uid, collection: request.collection, key: request.key),
                now: self.now
            )
            return answer
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
    /// replaces), in one consume before it is made; a rewrite that shrinks the document gives the difference back
    /// after it. The charges are given back if the write fails. Deleting a document gives its share back (`delete`).
    ///
    /// The charge is computed against the version of the document this replica saw last (`documents`; a document
    /// not seen is taken to be new), without reading it first, and the write is pinned to that version (`putOnce`'s
    /// base): user-data writes only while the document is still that version, and otherwise answers the version it
    /// found, against which the put gives its charge back and charges again (at most `putAttempts` times). So two
    /// writes racing on one key cannot both be charged as the first. A charge refused against a guess is not the
    /// answer: the document is read (`lookupPut`) and charged against what it is.
    ///
    /// Once per idempotency key: user-data writes under an op derived from the key (`putOnce`) and remembers the
    /// result, so a retry of a put that was made answers the first result (version and time) without writing again,
    /// even if the document changed since, and gives back what it charged; a concurrent duplicate that loses the
    /// race does the same. The same key with another request (collection, key, value or expected version) is
    /// `operation-reused`.
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
        let documentKey = DocumentVersions.Key(uid: caller.uid, collection: collection, key: key)
        let size = UInt64(value.readableBytes)
        // The version charged against; nil: to be read first. `read`: it came from user-data during this put.
        var base: PutBase? = documents.base(of: documentKey, now: now)
        if let expectedVersion, expectedVersion != base?.version { base = expectedVersion == 0 ? .absent : nil }
        var read = false
        for _ in 1...Self.putAttempts {
            guard let replaced = base else {
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
                (base, read) = (looked.document.map(PutBase.init) ?? .absent, true)
                continue
            }
            // Fresh ids for each attempt: what keeps a retried write from counting twice is the op (and the base); a
            // refunded quota key could not be consumed again. The keys still make the gateway's own retries of one
            // consume count once, and user-data's answer tells this attempt's write from another's.
            let attemptID = UUID().uuidString
            var charges = charges(
                of: size,
                in: collection,
                replacing: replaced,
                keys: QuotaKeys(idempotencyKey: "\(idempotencyKey)#\(attemptID)")
            )
            var opened = false
            do {
                if !charges.isEmpty {
                    (opened, charges) = try await consume(uid: caller.uid, charges, options: options)
                }
                let answer = try await operationReusedIfConflict {
                    try await userData.call(
                        UserDataMethods.putOnce,
                        PutOnceRequest(
                            uid: caller.uid,
                            collection: collection,
                            key: key,
                            value: value,
                            expectedVersion: expectedVersion,
                            base: replaced,
                            op: once.op,
                            attempt: attemptID,
                            requestDigest: once.digest
                        ),
                        options: options
                    )
                }
                switch answer {
                case .written(let result):
                    if size < replaced.size {
                        await releaseShrink(
                            caller: caller,
                            collection: collection,
                            key: key,
                            replaced: replaced,
                            by: size,
                            options: options
                        )
                    }
                    let written = PutBase(
                        version: result.version,
                        size: size,
                        updatedAtMicroseconds: result.updatedAtMicroseconds
                    )
                    documents.note(written, of: documentKey, now: now)
                    return result
                case .replayed(let result):
                    // A concurrent call with the same key wrote first (and paid): this one wrote nothing.
                    await refund(uid: caller.uid, charges, options: options)
                    return result
                case .found(let current):
                    await refund(uid: caller.uid, charges, options: options)
                    (base, read) = (current, true)
                }
            } catch let error as RPCError where error.status == GuestQuotaStatus.quotaExceeded && !read {
                base = nil  // refused against a guess: read the document, then charge against it
            } catch let error as RPCError where error.status == GuestQuotaStatus.quotaExceeded {
                throw error
            } catch {
                await giveBack(uid: caller.uid, charges, opened: opened, after: error, options: options)
                throw error
            }
        }
        throw RPCError(
            UserDataStatus.versionMismatch,
            "the document changed under each of \(Self.putAttempts) tries to write it; try again",
            details: VersionMismatchDetails(currentVersion: base?.version ?? 0).encoded()
        )
    }

    /// What a write of `size` bytes adds over `replaced`, one charge per counter it raises. A new document also
    /// takes one of its collection's counter (`documents:notes`), which guest-quota skips unless the caller's plan
    /// names it: the gateway need not know the plans, and the put stays one consume.
    private func charges(
        of size: UInt64,
        in collection: String,
        replacing replaced: PutBase,
        keys: QuotaKeys
    ) -> [QuotaCharge] {
        var charges: [QuotaCharge] = []
        if !replaced.exists {
            charges.append(
                QuotaCharge(counter: configuration.documentsCounter, amount: 1, idempotencyKey: keys.document)
            )
            if let counter = collectionCounter(collection) {
                charges.append(QuotaCharge(counter: counter, amount: 1, idempotencyKey: keys.collection))
            }
        }
        if size > replaced.size {
            charges.append(
                QuotaCharge(
                    counter: configuration.bytesCounter,
                    amount: Int64(size - replaced.size),
                    idempotencyKey: keys.bytes
                )
            )
        }
        return charges
    }

    /// The per-collection counter of `collection` (`documents:notes`), or nil when the name would not fit a
    /// counter's 64 bytes (no plan can name it, so nothing limits that collection apart from `documents`).
    func collectionCounter(_ collection: String) -> String? {
        let counter = "\(configuration.documentsCounter)\(AppCounterKeys.scopeSeparator)\(collection)"
        return counter.utf8.count <= GuestQuotaLimits.nameByteCountMax ? counter : nil
    }

    /// Gives back the bytes a rewrite freed, once per replaced version (like a delete's release).
    private func releaseShrink(
        caller: Caller,
        collection: String,
        key: String,
        replaced: PutBase,
        by size: UInt64,
        options: CallOptions
    ) async {
        let releaseKey =
            "put:"
            + QuotaKeys.hex("\(collection)\u{0}\(key)\u{0}\(replaced.version)\u{0}\(replaced.updatedAtMicroseconds)")
        await release(
            uid: caller.uid,
            counter: configuration.bytesCounter,
            amount: replaced.size - size,
            key: releaseKey,
            options: options
        )
    }

    /// Gives back the charges of a write that failed. If their consume opened the account (a guest's first) and
    /// user-data refused the write because the user is gone (deleted, or merged into an account), the account is
    /// taken away again rather than given back: a deletion or merge that ran meanwhile had nothing to remove yet.
    private func giveBack(
        uid: String,
        _ charges: [QuotaCharge],
        opened: Bool,
        after error: any Error,
        options: CallOptions
    )
        async
    {
        let gone = [UserDataStatus.uidDeleted, UserDataStatus.uidMerged].contains((error as? RPCError)?.status)
        guard opened && gone else { return await refund(uid: uid, charges, options: options) }
        do {
            _ = try await guestQuota.call(
                GuestQuotaMethods.deleteAll,
                QuotaDeleteAllRequest(uid: uid),
                options: options
            )
        } catch {
            logger.warning("quota account removal failed", metadata: ["user.uid": "\(uid)", "error": "\(error)"])
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

    /// Writes a put tries before a concurrent writer's `version-mismatch` is the answer.
    static let putAttempts = 5

    /// Deletes a document and gives back the quota it took (one document, one of its collection's counter, and its
    /// size in bytes).
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
        documents.note(.absent, of: DocumentVersions.Key(uid: caller.uid, collection: collection, key: key), now: now)
        // One release per deleted version of the document: a repeated delete finds nothing and releases nothing.
        let releaseKey =
            "del:"
            + QuotaKeys.hex("\(collection)\u{0}\(key)\u{0}\(document.version)\u{0}\(document.updatedAtMicroseconds)")
        // Side by side: the collection's release adds a call but no wait (guest-quota ignores it unless the plan
        // names the collection's counter).
        async let documentReleased: Void = release(
            uid: caller.uid,
            counter: configuration.documentsCounter,
            amount: 1,
            key: releaseKey + ":d",
            options: options
        )
        async let collectionReleased: Void = releaseCollection(
            caller: caller,
            collection: collection,
            key: releaseKey + ":c",
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
        _ = await (documentReleased, collectionReleased)
        return answer
    }

    private func releaseCollection(caller: Caller, collection: String, key: String, options: CallOptions) async {
        guard let counter = collectionCounter(collection) else { return }
        await release(uid: caller.uid, counter: counter, amount: 1, key: key, options: options)
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

    /// Consumes `charges` (all or none): whether that opened the account, and the charges that counted (a scoped
    /// counter the plan does not name is skipped, so there is nothing of it to give back).
    private func consume(
        uid: String,
        _ charges: [QuotaCharge],
        options: CallOptions
    ) async throws -> (opened: Bool, counted: [QuotaCharge]) {
        let answer = try await guestQuota.call(
            GuestQuotaMethods.consume,
            ConsumeRequest(uid: uid, charges: charges),
            options: options
        )
        let counted = Set(answer.usage.map(\.counter))
        return (answer.opened, charges.filter { counted.contains($0.counter) })
    }

    private func refund(uid: String, _ charges: [QuotaCharge], options: CallOptions) async {
        for charge in charges {
            do {
                _ = try await guestQuota.call(
                    GuestQuotaMethods.refund,
                    RefundRequest(uid: uid, idempotencyKey: charge.idempotencyKey),
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
    let collection: String

    init(idempotencyKey: String) {
        let hash = Self.hex(idempotencyKey)
        document = "put-doc:" + hash
        bytes = "put-bytes:" + hash
        collection = "put-col:" + hash
    }

    static func hex(_ text: String) -> String {
        SHA256.hash(Array(text.utf8)).map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 2 ? digits : "0" + digits
        }.joined()
    }
}
