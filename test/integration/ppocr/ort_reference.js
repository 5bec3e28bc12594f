#!/usr/bin/env node
// Reference outputs from ONNX Runtime (onnxruntime-node) for the end-to-end
// tests: runs MODEL on .npy inputs and writes every output as
// OUTDIR/<output name>.npy ('/' in names becomes '_'), in model output order.
//
// usage: node ort_reference.js --ort-dir DIR --model MODEL.onnx
//            --input NAME=FILE.npy [--input ...] --output-dir OUTDIR
//
// --ort-dir is the folder holding node_modules/onnxruntime-node
// (third_party/npm/ort). Sessions use graphOptimizationLevel 'all' and one
// intra-op thread. Exit 0 on success, 1 with 'error: ...' on stderr otherwise.
'use strict';

const fs = require('fs');
const path = require('path');

function fail(msg) {
  process.stderr.write(`error: ${msg}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const args = {inputs: [], ortDir: null, model: null, outDir: null};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) fail(`missing value after ${a}`);
      return argv[++i];
    };
    if (a === '--ort-dir') args.ortDir = next();
    else if (a === '--model') args.model = next();
    else if (a === '--output-dir') args.outDir = next();
    else if (a === '--input') {
      const v = next();
      const eq = v.indexOf('=');
      if (eq <= 0) fail(`--input expects NAME=FILE, got '${v}'`);
      args.inputs.push({name: v.slice(0, eq), file: v.slice(eq + 1)});
    } else fail(`unknown argument '${a}'`);
  }
  if (!args.ortDir || !args.model || !args.outDir)
    fail('--ort-dir, --model and --output-dir are required');
  return args;
}

// numpy dtype descr <-> ORT tensor type <-> typed array.
const DTYPES = [
  {descr: '<f4', ort: 'float32', ctor: Float32Array},
  {descr: '<f8', ort: 'float64', ctor: Float64Array},
  {descr: '<i8', ort: 'int64', ctor: BigInt64Array},
  {descr: '<u8', ort: 'uint64', ctor: BigUint64Array},
  {descr: '<i4', ort: 'int32', ctor: Int32Array},
  {descr: '<u4', ort: 'uint32', ctor: Uint32Array},
  {descr: '<i2', ort: 'int16', ctor: Int16Array},
  {descr: '<u2', ort: 'uint16', ctor: Uint16Array},
  {descr: '|i1', ort: 'int8', ctor: Int8Array},
  {descr: '|u1', ort: 'uint8', ctor: Uint8Array},
  {descr: '|b1', ort: 'bool', ctor: Uint8Array},
];

// Minimal .npy reader: versions 1-3, little-endian, C order.
function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY')
    fail(`${file}: not a .npy file`);
  const major = buf[6];
  let headerLen, offset;
  if (major === 1) {
    headerLen = buf.readUInt16LE(8);
    offset = 10;
  } else {
    headerLen = buf.readUInt32LE(8);
    offset = 12;
  }
  const header = buf.toString('latin1', offset, offset + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const order = /'fortran_order':\s*(True|False)/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !order || !shape) fail(`${file}: malformed .npy header`);
  if (order[1] === 'True') fail(`${file}: Fortran-ordered arrays are not supported`);
  let d = descr[1];
  if (d === '<b1') d = '|b1';
  const dt = DTYPES.find((t) => t.descr === d);
  if (!dt) fail(`${file}: unsupported dtype ${descr[1]}`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length)
      .map((s) => Number(s));
  const count = dims.reduce((a, b) => a * b, 1);
  const start = offset + headerLen;
  const nbytes = count * dt.ctor.BYTES_PER_ELEMENT;
  if (buf.length - start < nbytes) fail(`${file}: truncated data`);
  // Copy into an aligned buffer for the typed array.
  const raw = new ArrayBuffer(nbytes);
  new Uint8Array(raw).set(buf.subarray(start, start + nbytes));
  let data = new dt.ctor(raw);
  if (dt.ort === 'bool') data = new Uint8Array(raw);
  return {type: dt.ort, dims, data};
}

// .npy writer, format version 1.0: the header (magic, version, length, dict
// padded with spaces and ended by '\n') is a multiple of 64 bytes long.
function writeNpy(file, type, dims, data) {
  const dt = DTYPES.find((t) => t.ort === type);
  if (!dt) fail(`output type ${type} cannot be written as .npy`);
  const shapeStr = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let dict = `{'descr': '${dt.descr}', 'fortran_order': False, 'shape': ${shapeStr}, }`;
  const preamble = 10;
  let total = preamble + dict.length + 1;
  const pad = (64 - (total % 64)) % 64;
  dict = dict + ' '.repeat(pad) + '\n';
  const header = Buffer.alloc(preamble + dict.length);
  header.write('\x93NUMPY', 0, 'latin1');
  header[6] = 1;
  header[7] = 0;
  header.writeUInt16LE(dict.length, 8);
  header.write(dict, preamble, 'latin1');
  let bytes;
  if (type === 'bool') {
    bytes = Buffer.from(Uint8Array.from(data, (v) => (v ? 1 : 0)));
  } else {
    bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  }
  fs.writeFileSync(file, Buffer.concat([header, bytes]));
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const ortPath = path.resolve(args.ortDir, 'node_modules', 'onnxruntime-node');
  let ort;
  try {
    ort = require(ortPath);
  } catch (e) {
    fail(`cannot load onnxruntime-node from ${ortPath}: ${e.message}`);
  }
  const session = await ort.InferenceSession.create(args.model, {
    graphOptimizationLevel: 'all',
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const feeds = {};
  for (const inp of args.inputs) {
    if (!session.inputNames.includes(inp.name))
      fail(`model has no input '${inp.name}' (inputs: ${session.inputNames.join(', ')})`);
    const t = readNpy(inp.file);
    feeds[inp.name] = new ort.Tensor(t.type, t.data, t.dims);
  }
  for (const name of session.inputNames)
    if (!(name in feeds)) fail(`no value given for model input '${name}'`);
  const results = await session.run(feeds);
  fs.mkdirSync(args.outDir, {recursive: true});
  for (const name of session.outputNames) {
    const t = results[name];
    const file = path.join(args.outDir, name.replace(/\//g, '_') + '.npy');
    writeNpy(file, t.type, Array.from(t.dims, Number), t.data);
    process.stdout.write(`${name}: ${t.type} [${t.dims.join('x')}] -> ${file}\n`);
  }
}

main().catch((e) => fail(e && e.message ? e.message : String(e)));
