// A function's flow facts (flow-facts.ts) and its regions' recorded store addresses, kept in typed
// arrays once the sampling pass is done with them. The pass holds every function's facts until the
// site table is written; as objects (a fact, its target, its sources array, its strings, its address
// trees) they filled Node's heap on yosys. Packed, a fact is a few 32-bit words, an address tree is
// kept once however many facts and recorded stores share it, and the readers (the blame analysis,
// JSON.stringify of the site table) see the same plain objects as before, unpacked on first use.
import type { AddressAst, AddressOp, FlowFact, FlowTarget, FunctionFacts } from './flow-facts.js';

export interface RecordedAddress {
  ptr: AddressAst;
  offset: number;
}

const OPS: readonly AddressOp[] = ['add', 'sub', 'mul', 'shl', 'shr_u', 'shr_s', 'and', 'or', 'xor'];
const OP_INDEX = new Map(OPS.map((op, i) => [op, i]));

// Address tree nodes, prefix order: a tag, then its fields and children.
const AST_NULL = 0;
const AST_U32 = 1;
const AST_NUMBER = 2;
const AST_LOCAL = 3;
const AST_OP = 4;
const AST_LOAD = 5;
/** A node already written: its position follows (trees share subtrees; they stay shared). */
const AST_SEEN = 6;

const TARGET_KINDS: ReadonlyArray<FlowTarget['kind']> = ['local', 'store', 'global', 'return', 'arg', 'cond'];
const TARGET_INDEX = new Map(TARGET_KINDS.map((kind, i) => [kind, i]));

// A store's `base`: absent, null, or a local (stored as local + 2).
const BASE_ABSENT = 0;
const BASE_NULL = 1;

// A source: `l3`, `c5`, `g0` as (number << 2 | kind); anything else by index into the strings.
const SOURCE_PREFIXES = ['l', 'c', 'g'] as const;
const SOURCE_STRING = 3;

/** A number that does not fit one signed 32-bit word: this word, then its index among the wide numbers. */
const WIDE = -0x80000000;

class WordWriter {
  private words = new Int32Array(64);
  length = 0;

  constructor(private readonly wide: number[]) {}

  word(value: number): void {
    if (this.length === this.words.length) {
      const grown = new Int32Array(this.words.length * 2);
      grown.set(this.words);
      this.words = grown;
    }
    this.words[this.length++] = value;
  }

  /** Any number, exactly. */
  number(value: number): void {
    if ((value | 0) === value && value !== WIDE && !Object.is(value, -0)) this.word(value);
    else {
      this.word(WIDE);
      this.word(this.wide.length);
      this.wide.push(value);
    }
  }

  finish(): Int32Array {
    return this.words.slice(0, this.length);
  }
}

class WordReader {
  at = 0;

  constructor(
    private readonly words: Int32Array,
    private readonly wide: readonly number[],
  ) {}

  word(): number {
    return this.words[this.at++]!;
  }

  number(): number {
    const value = this.word();
    return value === WIDE ? this.wide[this.word()]! : value;
  }

  get done(): boolean {
    return this.at >= this.words.length;
  }
}

/** Packs a function's facts, regions and per-region recorded stores; the rest stays as it is. */
export function packFunctionFacts(
  facts: FunctionFacts,
  recorded: ReadonlyArray<readonly RecordedAddress[]>,
): PackedFunctionFacts {
  const wide: number[] = [];
  const strings: string[] = [];
  const stringIndex = new Map<string, number>();
  const stringOf = (text: string) => {
    let index = stringIndex.get(text);
    if (index === undefined) {
      index = strings.length;
      stringIndex.set(text, index);
      strings.push(text);
    }
    return index;
  };
  const asts = new WordWriter(wide);
  const astPositions = new Map<object, number>();
  /** Writes a tree into the tree words and returns where it starts. */
  const tree = (ast: AddressAst): number => {
    if (ast !== null && typeof ast === 'object') {
      const seen = astPositions.get(ast);
      if (seen !== undefined) return seen;
    }
    const at = asts.length;
    writeTree(ast);
    return at;
  };
  const writeTree = (ast: AddressAst): void => {
    if (ast === null) asts.word(AST_NULL);
    else if (typeof ast === 'number') {
      if (ast >>> 0 === ast) {
        asts.word(AST_U32);
        asts.word(ast | 0);
      } else {
        asts.word(AST_NUMBER);
        asts.number(ast);
      }
    } else {
      const seen = astPositions.get(ast);
      if (seen !== undefined) {
        asts.word(AST_SEEN);
        asts.word(seen);
        return;
      }
      astPositions.set(ast, asts.length);
      if ('l' in ast) {
        asts.word(AST_LOCAL);
        asts.number(ast.l);
      } else if ('ld' in ast) {
        asts.word(AST_LOAD);
        asts.number(ast.off);
        writeTree(ast.ld);
      } else {
        asts.word(AST_OP);
        asts.word(OP_INDEX.get(ast.op)!);
        writeTree(ast.a);
        writeTree(ast.b);
      }
    }
  };
  const out = new WordWriter(wide);
  for (const fact of facts.facts) {
    out.number(fact.region);
    const t = fact.target;
    out.word(TARGET_INDEX.get(t.kind)!);
    if (t.kind === 'local') out.number(t.local);
    else if (t.kind === 'store') {
      out.word(tree(t.ptr));
      out.number(t.offset);
      out.number(t.bytes);
      if (!('base' in t) || t.base === undefined) out.word(BASE_ABSENT);
      else if (t.base === null) out.word(BASE_NULL);
      else out.number(t.base + 2);
    } else if (t.kind === 'global') out.word(stringOf(t.name));
    else if (t.kind === 'arg') {
      out.number(t.call);
      out.number(t.arg);
    }
    out.word(fact.sources.length);
    for (const source of fact.sources) out.number(sourceWord(source, stringOf));
  }
  const regions = new WordWriter(wide);
  for (const region of facts.regions) {
    regions.number(region.id);
    regions.number(region.loop);
    regions.number(region.instructions);
  }
  const stores = new WordWriter(wide);
  const recordedStarts = new Int32Array(recorded.length + 1);
  recorded.forEach((list, k) => {
    for (const store of list) {
      stores.word(tree(store.ptr));
      stores.number(store.offset);
    }
    recordedStarts[k + 1] = stores.length;
  });
  return new PackedFunctionFacts(facts, {
    facts: out.finish(),
    asts: asts.finish(),
    regions: regions.finish(),
    stores: stores.finish(),
    recordedStarts,
    wide,
    strings,
  });
}

function sourceWord(source: string, stringOf: (text: string) => number): number {
  const kind = SOURCE_PREFIXES.indexOf(source[0] as (typeof SOURCE_PREFIXES)[number]);
  const rest = source.slice(1);
  const n = Number(rest);
  if (kind >= 0 && Number.isInteger(n) && n >= 0 && n < 1 << 28 && String(n) === rest) return (n << 2) | kind;
  return (stringOf(source) << 2) | SOURCE_STRING;
}

/** A packed function's words (the facts file of the instrumentation cache stores them as they are). */
export interface PackedWords {
  facts: Int32Array;
  asts: Int32Array;
  regions: Int32Array;
  /** Per recorded store: its tree's position and its offset; per region, where its stores start. */
  stores: Int32Array;
  recordedStarts: Int32Array;
  wide: number[];
  strings: string[];
}

/** A function's facts without the packed parts: what a PackedFunctionFacts is built from beside its words. */
export type FunctionFactsHead = Omit<FunctionFacts, 'facts' | 'regions'>;

/**
 * A function's facts as the site table holds them (FunctionFacts), with `facts` and `regions`
 * unpacked on first read and JSON (toJSON) giving the same object, key for key, as the unpacked one.
 */
export class PackedFunctionFacts implements FunctionFacts {
  readonly index: number;
  readonly params: number;
  readonly localNames: string[];
  readonly loopParents: number[];
  readonly callees: Array<number | null>;
  readonly grows: number[];
  readonly stackLocals: number[];
  private unpackedFacts: FlowFact[] | undefined;
  private unpackedRegions: FunctionFacts['regions'] | undefined;

  constructor(
    from: FunctionFactsHead,
    readonly words: PackedWords,
  ) {
    this.index = from.index;
    this.params = from.params;
    this.localNames = from.localNames;
    this.loopParents = from.loopParents;
    this.callees = from.callees;
    this.grows = from.grows;
    this.stackLocals = from.stackLocals;
  }

  get facts(): FlowFact[] {
    return (this.unpackedFacts ??= this.readFacts());
  }

  get regions(): FunctionFacts['regions'] {
    return (this.unpackedRegions ??= this.readRegions());
  }

  /** The recorded stores of the function's region `index` (function-local). */
  recorded(index: number): RecordedAddress[] {
    const { stores, recordedStarts, wide } = this.words;
    const reader = new WordReader(stores, wide);
    reader.at = recordedStarts[index] ?? 0;
    const end = recordedStarts[index + 1] ?? 0;
    const trees = this.treeReader();
    const out: RecordedAddress[] = [];
    while (reader.at < end) {
      const ptr = trees(reader.word());
      out.push({ ptr, offset: reader.number() });
    }
    return out;
  }

  /** The plain object, in FunctionFacts' key order (what the site table held before packing). */
  toJSON(): FunctionFacts {
    return {
      index: this.index,
      params: this.params,
      localNames: this.localNames,
      facts: this.unpackedFacts ?? this.readFacts(),
      regions: this.unpackedRegions ?? this.readRegions(),
      loopParents: this.loopParents,
      callees: this.callees,
      grows: this.grows,
      stackLocals: this.stackLocals,
    };
  }

  private readFacts(): FlowFact[] {
    const { facts, wide, strings } = this.words;
    const reader = new WordReader(facts, wide);
    const trees = this.treeReader();
    const out: FlowFact[] = [];
    while (!reader.done) {
      const region = reader.number();
      const kind = TARGET_KINDS[reader.word()]!;
      let target: FlowTarget;
      if (kind === 'local') target = { kind, local: reader.number() };
      else if (kind === 'store') {
        const ptr = trees(reader.word());
        const offset = reader.number();
        const bytes = reader.number();
        const base = reader.number();
        target =
          base === BASE_ABSENT
            ? { kind, ptr, offset, bytes }
            : { kind, ptr, offset, bytes, base: base === BASE_NULL ? null : base - 2 };
      } else if (kind === 'global') target = { kind, name: strings[reader.word()]! };
      else if (kind === 'arg') target = { kind, call: reader.number(), arg: reader.number() };
      else target = { kind };
      const count = reader.word();
      const sources: string[] = [];
      for (let k = 0; k < count; k++) {
        const word = reader.number();
        const tag = word & 3;
        sources.push(tag === SOURCE_STRING ? strings[word >>> 2]! : `${SOURCE_PREFIXES[tag]!}${word >>> 2}`);
      }
      out.push({ region, target, sources });
    }
    return out;
  }

  private readRegions(): FunctionFacts['regions'] {
    const reader = new WordReader(this.words.regions, this.words.wide);
    const out: FunctionFacts['regions'] = [];
    while (!reader.done) out.push({ id: reader.number(), loop: reader.number(), instructions: reader.number() });
    return out;
  }

  /** Reads the tree at a position; a subtree written once is read once and shared, as it was. */
  private treeReader(): (position: number) => AddressAst {
    const { asts, wide } = this.words;
    const reader = new WordReader(asts, wide);
    const read = new Map<number, AddressAst>();
    const node = (): AddressAst => {
      const at = reader.at;
      const tag = reader.word();
      if (tag === AST_NULL) return null;
      if (tag === AST_U32) return reader.word() >>> 0;
      if (tag === AST_NUMBER) return reader.number();
      if (tag === AST_SEEN) return treeAt(reader.word());
      let ast: AddressAst;
      if (tag === AST_LOCAL) ast = { l: reader.number() };
      else if (tag === AST_LOAD) {
        const off = reader.number();
        ast = { ld: node(), off };
      } else {
        const op = OPS[reader.word()]!;
        const a = node();
        ast = { op, a, b: node() };
      }
      read.set(at, ast);
      return ast;
    };
    const treeAt = (position: number): AddressAst => {
      const known = read.get(position);
      if (known !== undefined) return known;
      const saved = reader.at;
      reader.at = position;
      const ast = node();
      reader.at = saved;
      return ast;
    };
    return treeAt;
  }
}

/** A region of the sample layout (SampleLayout.regions) whose recorded stores its function's pack holds. */
export class PackedRegion {
  readonly function: number;

  constructor(
    fn: number,
    readonly index: number,
    readonly owner: PackedFunctionFacts,
  ) {
    this.function = fn;
  }

  get recorded(): RecordedAddress[] {
    return this.owner.recorded(this.index);
  }

  toJSON(): { function: number; index: number; recorded: RecordedAddress[] } {
    return { function: this.function, index: this.index, recorded: this.recorded };
  }
}

/**
 * Packs each function's facts and its regions' recorded stores once the sampling pass has moved on:
 * `start` a function's facts (appended to `functions`; its regions are appended to `regions` while
 * the pass works on it), and `finish` after the last one.
 */
export class FactPacker {
  private current: { at: number; facts: FunctionFacts; firstRegion: number } | null = null;

  constructor(
    private readonly functions: FunctionFacts[],
    private readonly regions: Array<{ function: number; index: number; recorded: RecordedAddress[] }>,
  ) {}

  start(facts: FunctionFacts): void {
    this.finish();
    this.current = { at: this.functions.length, facts, firstRegion: this.regions.length };
    this.functions.push(facts);
  }

  finish(): void {
    if (!this.current) return;
    const { at, facts, firstRegion } = this.current;
    this.current = null;
    const own = this.regions.slice(firstRegion);
    const packed = packFunctionFacts(
      facts,
      own.map((region) => region.recorded),
    );
    this.functions[at] = packed;
    own.forEach((region, k) => {
      if (region.index !== k)
        throw new Error(`sample layout: region ${firstRegion + k} is not its function's region ${k}`);
      this.regions[firstRegion + k] = new PackedRegion(region.function, k, packed);
    });
  }
}
