import FoyerAPI
import FoyerRPC
import FoyerWire
import NIOCore

/// The RPC face of the store: checks what the contract leaves to the service (uid, collection, key, op id,
/// page size, cursor), calls the store, and maps its refusals to statuses in one place.
struct UserDataHandlers: Sendable {
    let store: DocumentStore

    func register(on router: inout RPCRouter) {
        router.register(UserDataMethods.put, mapping: UserDataError.self) { request in
            try checkDocument(uid: request.uid, collection: request.collection, key: request.key)
            return try await store.put(
                uid: request.uid,
                collection: request.collection,
                key: request.key,
                value: request.value,
                expectedVersion: request.expectedVersion
            )
        }
        router.register(UserDataMethods.get, mapping: UserDataError.self) { request in
            try checkDocument(uid: request.uid, collection: request.collection, key: request.key)
            return try await store.get(uid: request.uid, collection: request.collection, key: request.key)
        }
        router.register(UserDataMethods.list, mapping: UserDataError.self) { request in
            try checkUID(request.uid)
            try checkCollection(request.collection)
            let size = try pageSize(request.pageSize)
            let cursor = try request.cursor.map { bytes throws(UserDataError) in
                let cursor = try DocumentCursor(decoding: bytes, kind: .list)
                guard cursor.collection == request.collection else { throw UserDataError.invalidCursor }
                return cursor
            }
            return try await store.page(
                uid: request.uid,
                scope: .collection(request.collection),
                cursor: cursor,
                pageSize: size
            )
        }
        router.register(UserDataMethods.delete, mapping: UserDataError.self) { request in
            try checkDocument(uid: request.uid, collection: request.collection, key: request.key)
            return try await store.delete(
                uid: request.uid,
                collection: request.collection,
                key: request.key,
                expectedVersion: request.expectedVersion
            )
        }
        router.register(UserDataMethods.count, mapping: UserDataError.self) { request in
            try checkUID(request.uid)
            if let collection = request.collection { try checkCollection(collection) }
            return try await store.count(uid: request.uid, collection: request.collection)
        }
        router.register(UserDataMethods.merge, mapping: UserDataError.self) { request in
            try checkUID(request.fromUID)
            try checkUID(request.toUID)
            try checkOperationID(request.op)
            return try await store.merge(
                from: request.fromUID,
                to: request.toUID,
                op: request.op,
                policy: request.policy
            )
        }
        router.register(UserDataMethods.deleteAll, mapping: UserDataError.self) { request in
            try checkUID(request.uid)
            return try await store.deleteAll(uid: request.uid)
        }
        router.registerBatch(
            UserDataMethods.deleteAllBatch,
            mapping: UserDataError.self,
            elements: \.elements,
            countMax: BatchLimits.countMax,
            check: { element throws(UserDataError) in try checkUID(element.uid) }
        ) { elements in Batch(try await store.deleteAll(uids: elements.map(\.uid))) }
        router.register(UserDataMethods.putOnce, mapping: UserDataError.self) { request in
            try checkDocument(uid: request.uid, collection: request.collection, key: request.key)
            try checkOperationID(request.op)
            try checkOperationID(request.attempt)
            return try await store.putOnce(request)
        }
        router.register(UserDataMethods.lookupPut, mapping: UserDataError.self) { request in
            try checkDocument(uid: request.uid, collection: request.collection, key: request.key)
            try checkOperationID(request.op)
            return try await store.lookupPut(request)
        }
        router.register(UserDataMethods.prune, mapping: UserDataError.self) { request in
            PruneResponse(removed: UInt64(try await store.prune(limit: Int(request.limit))))
        }
        router.register(UserDataMethods.export, mapping: UserDataError.self) { request in
            try checkUID(request.uid)
            let size = try pageSize(request.pageSize)
            let cursor = try request.cursor.map { bytes throws(UserDataError) in
                try DocumentCursor(decoding: bytes, kind: .export)
            }
            return try await store.page(uid: request.uid, scope: .everything, cursor: cursor, pageSize: size)
        }
    }

    private func checkUID(_ uid: String) throws(UserDataError) {
        guard UserDataLimits.isValidUID(uid) else {
            throw .invalidArgument("uid must be 1-\(UserDataLimits.uidByteCountMax) bytes of A-Z a-z 0-9 _ -")
        }
    }

    private func checkOperationID(_ op: String) throws(UserDataError) {
        guard UserDataLimits.isValidOperationID(op) else {
            throw .invalidArgument(
                "op ids must be 1-\(UserDataLimits.operationIDByteCountMax) bytes of printable ASCII"
            )
        }
    }

    private func checkCollection(_ collection: String) throws(UserDataError) {
        guard UserDataLimits.isValidCollection(collection) else { throw .invalidCollection }
    }

    private func checkDocument(uid: String, collection: String, key: String) throws(UserDataError) {
        try checkUID(uid)
        try checkCollection(collection)
        guard UserDataLimits.isValidKey(key) else { throw .invalidKey }
    }

    private func pageSize(_ asked: UInt64) throws(UserDataError) -> Int {
        let configuration = store.configuration
        if asked == 0 { return configuration.pageSizeDefault }
        guard asked <= UInt64(configuration.pageSizeMax) else {
            throw .pageSizeTooLarge(asked, max: configuration.pageSizeMax)
        }
        return Int(asked)
    }
}
