public import FoyerWire

/// The methods of user-data (ids `0x0301`…, range `0x0300`–`0x03FF`). Services/UserData/README.md lists each with
/// its messages and statuses.
///
/// Large answers (a document, a page, an export page) are single bodies, which the RPC runtime sends LZ4-compressed
/// when that saves bytes; pages are cut by count and by bytes so that every answer fits one frame.
public enum UserDataMethods {
    /// Writes a document, unconditionally or only at an expected version (compare-and-set).
    public static let put = RPCMethod<PutDocumentRequest, PutDocumentResponse>(
        id: 0x0301,
        name: "user-data.put",
        idempotent: false
    )
    /// Reads a document.
    public static let get = RPCMethod<GetDocumentRequest, GetDocumentResponse>(
        id: 0x0302,
        name: "user-data.get",
        idempotent: true
    )
    /// One page of a collection, in key order (bytewise), with a cursor for the next.
    public static let list = RPCMethod<ListDocumentsRequest, DocumentPage>(
        id: 0x0303,
        name: "user-data.list",
        idempotent: true
    )
    /// Deletes a document, unconditionally or only at an expected version.
    public static let delete = RPCMethod<DeleteDocumentRequest, DeleteDocumentResponse>(
        id: 0x0304,
        name: "user-data.delete",
        idempotent: true
    )
    /// How many documents (and bytes of values) a user has, in all or in one collection.
    public static let count = RPCMethod<CountDocumentsRequest, CountDocumentsResponse>(
        id: 0x0305,
        name: "user-data.count",
        idempotent: true
    )
    /// Moves every document of a guest to an account under a conflict policy, once per op id.
    public static let merge = RPCMethod<MergeDocumentsRequest, MergeReport>(
        id: 0x0306,
        name: "user-data.merge",
        idempotent: true
    )
    /// Deletes every document of a user, in batches.
    public static let deleteAll = RPCMethod<DeleteAllDocumentsRequest, DeleteAllDocumentsResponse>(
        id: 0x0307,
        name: "user-data.deleteAll",
        idempotent: true
    )
    /// `deleteAll` for up to 1000 uids (the inactivity clean-up), their documents deleted together in batches: one
    /// answer per uid, in order.
    public static let deleteAllBatch = RPCMethod<Batch<DeleteAllDocumentsRequest>, Batch<DeleteAllDocumentsResponse>>(
        id: 0x0309,
        name: "user-data.deleteAllBatch",
        idempotent: true
    )
    /// One page of every document of a user, across collections ("download my data").
    public static let export = RPCMethod<ExportDocumentsRequest, DocumentPage>(
        id: 0x0308,
        name: "user-data.export",
        idempotent: true
    )
    /// `put` once per (uid, op), made only while the document is the version the caller charged against (else
    /// answered with the document as found): a retry of the op answers the first write's result and writes nothing,
    /// even if the document changed since. (Id `0x030A`, without the charged version, is retired.)
    public static let putOnce = RPCMethod<PutOnceRequest, PutOnceResponse>(
        id: 0x030D,
        name: "user-data.putOnce",
        idempotent: true
    )
    /// Whether an op already wrote (its result), or else the document as it stands: what the gateway asks when a
    /// charge it made without reading the document was refused.
    public static let lookupPut = RPCMethod<LookupPutRequest, LookupPutResponse>(
        id: 0x030B,
        name: "user-data.lookupPut",
        idempotent: true
    )
    /// Removes records past their retention: deletion tombstones, merge records, put records (cleanup's sweep).
    public static let prune = RPCMethod<PruneRequest, PruneResponse>(
        id: 0x030C,
        name: "user-data.prune",
        idempotent: true
    )

    // MARK: The operation table

    /// Every method above: the router serves exactly these (`RPCRouter(serving:)`), and the README's method table
    /// is tested against them.
    public static let all: [RPCMethodDescriptor] = [
        put.descriptor, get.descriptor, list.descriptor, delete.descriptor, count.descriptor, merge.descriptor,
        deleteAll.descriptor, deleteAllBatch.descriptor, export.descriptor, putOnce.descriptor, lookupPut.descriptor,
        prune.descriptor,
    ]
}
