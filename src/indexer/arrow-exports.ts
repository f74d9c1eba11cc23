/**
 * The names apache-arrow 18.1.0 exports (its one-file build, Arrow.esnext.min.js), in order: lance-load.ts lets LanceDB
 * require a module of these names whose values load Arrow on first use, so a search that never touches Arrow never
 * loads it. test/unit/arrow-exports.test.ts holds the list to the installed package.
 */
export const ARROW_VERSION = '18.1.0';

export const ARROW_EXPORTS: readonly string[] = [
  'AsyncByteQueue', 'AsyncByteStream', 'AsyncMessageReader', 'AsyncRecordBatchFileReader',
  'AsyncRecordBatchStreamReader', 'Binary', 'BinaryBuilder', 'Bool', 'BoolBuilder', 'BufferType', 'Builder',
  'ByteStream', 'Data', 'DataType', 'DateBuilder', 'DateDay', 'DateDayBuilder', 'DateMillisecond',
  'DateMillisecondBuilder', 'DateUnit', 'Date_', 'Decimal', 'DecimalBuilder', 'DenseUnion', 'DenseUnionBuilder',
  'Dictionary', 'DictionaryBuilder', 'Duration', 'DurationBuilder', 'DurationMicrosecond',
  'DurationMicrosecondBuilder', 'DurationMillisecond', 'DurationMillisecondBuilder', 'DurationNanosecond',
  'DurationNanosecondBuilder', 'DurationSecond', 'DurationSecondBuilder', 'Field', 'FixedSizeBinary',
  'FixedSizeBinaryBuilder', 'FixedSizeList', 'FixedSizeListBuilder', 'Float', 'Float16', 'Float16Builder', 'Float32',
  'Float32Builder', 'Float64', 'Float64Builder', 'FloatBuilder', 'Int', 'Int16', 'Int16Builder', 'Int32',
  'Int32Builder', 'Int64', 'Int64Builder', 'Int8', 'Int8Builder', 'IntBuilder', 'Interval', 'IntervalBuilder',
  'IntervalDayTime', 'IntervalDayTimeBuilder', 'IntervalUnit', 'IntervalYearMonth', 'IntervalYearMonthBuilder',
  'JSONMessageReader', 'LargeBinary', 'LargeBinaryBuilder', 'LargeUtf8', 'LargeUtf8Builder', 'List', 'ListBuilder',
  'MapBuilder', 'MapRow', 'Map_', 'Message', 'MessageHeader', 'MessageReader', 'MetadataVersion', 'Null',
  'NullBuilder', 'Precision', 'RecordBatch', 'RecordBatchFileReader', 'RecordBatchFileWriter',
  'RecordBatchJSONWriter', 'RecordBatchReader', 'RecordBatchStreamReader', 'RecordBatchStreamWriter',
  'RecordBatchWriter', 'Schema', 'SparseUnion', 'SparseUnionBuilder', 'Struct', 'StructBuilder', 'StructRow',
  'Table', 'Time', 'TimeBuilder', 'TimeMicrosecond', 'TimeMicrosecondBuilder', 'TimeMillisecond',
  'TimeMillisecondBuilder', 'TimeNanosecond', 'TimeNanosecondBuilder', 'TimeSecond', 'TimeSecondBuilder', 'TimeUnit',
  'Timestamp', 'TimestampBuilder', 'TimestampMicrosecond', 'TimestampMicrosecondBuilder', 'TimestampMillisecond',
  'TimestampMillisecondBuilder', 'TimestampNanosecond', 'TimestampNanosecondBuilder', 'TimestampSecond',
  'TimestampSecondBuilder', 'Type', 'Uint16', 'Uint16Builder', 'Uint32', 'Uint32Builder', 'Uint64', 'Uint64Builder',
  'Uint8', 'Uint8Builder', 'Union', 'UnionBuilder', 'UnionMode', 'Utf8', 'Utf8Builder', 'Vector', 'Visitor',
  'builderThroughAsyncIterable', 'builderThroughIterable', 'makeBuilder', 'makeData', 'makeTable', 'makeVector',
  'tableFromArrays', 'tableFromIPC', 'tableFromJSON', 'tableToIPC', 'util', 'vectorFromArray',
];
