// WAT loop shapes shared by the CFG and taint tests.

/** Three loops that run one after another, emitted as a three-deep nest (as compilers do); the last one's exit leaves all three constructs. */
export const SEQUENTIAL_NEST = `
    (func $run (export "run") (param $n i32) (param $m i32) (param $k i32) (result i32) (local $i i32) (local $j i32) (local $l i32)
      (block $out
        (loop $a
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $a (i32.lt_s (local.get $i) (local.get $n)))
          (loop $b
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br_if $b (i32.lt_s (local.get $j) (local.get $m)))
            (loop $c
              (local.set $l (i32.add (local.get $l) (i32.const 1)))
              (br_if $out (i32.ge_s (local.get $l) (local.get $k)))
              (br $c)))))
      (i32.add (local.get $i) (i32.add (local.get $j) (local.get $l))))`;

/** The range check clang puts around `(int)x` for f64 `$x` into i32 `$r`: out of range, INT_MIN; in range, the conversion. */
export const FLOAT_TO_INT_DIAMOND = `
      (block $done
        (block $in
          (br_if $in (f64.lt (f64.abs (local.get $x)) (f64.const 2147483648)))
          (local.set $r (i32.const -2147483648))
          (br $done))
        (local.set $r (i32.trunc_f64_s (local.get $x))))`;

/** `$count`: counts to its argument, so its loop's exit condition carries the argument's labels. */
export const COUNT = `(func $count (param $bound i32) (result i32) (local $i i32)
      (block $exit (loop $l
        (br_if $exit (i32.ge_s (local.get $i) (local.get $bound)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
      (local.get $i))`;
