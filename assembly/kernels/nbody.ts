// All-pairs gravitational n-body simulation with a softened potential and a
// symplectic Euler integrator.
//
// Cost per step: n^2 pair visits in `accelerate` (n * (n - 1) interactions,
// the i == j pair is skipped) plus O(n) in `integrate`: O(n^2 * steps).

import { lcgNext, lcgUnit } from "../lcg";
import { param } from "../taintlens";

const SOFTENING2: f64 = 1e-3;
const DT: f64 = 1e-3;

/** Bodies in structure-of-arrays layout: one array of n doubles per quantity. */
class Bodies {
  constructor(
    public x: StaticArray<f64>, public y: StaticArray<f64>, public z: StaticArray<f64>,
    public vx: StaticArray<f64>, public vy: StaticArray<f64>, public vz: StaticArray<f64>,
    public ax: StaticArray<f64>, public ay: StaticArray<f64>, public az: StaticArray<f64>,
    public mass: StaticArray<f64>,
  ) {}
}

function init(b: Bodies, n: i32): void {
  let state: u32 = 31337;
  for (let i = 0; i < n; i++) {
    state = lcgNext(state);
    unchecked((b.x[i] = lcgUnit(state) - 0.5));
    state = lcgNext(state);
    unchecked((b.y[i] = lcgUnit(state) - 0.5));
    state = lcgNext(state);
    unchecked((b.z[i] = lcgUnit(state) - 0.5));
    state = lcgNext(state);
    unchecked((b.vx[i] = 0.1 * (lcgUnit(state) - 0.5)));
    state = lcgNext(state);
    unchecked((b.vy[i] = 0.1 * (lcgUnit(state) - 0.5)));
    state = lcgNext(state);
    unchecked((b.vz[i] = 0.1 * (lcgUnit(state) - 0.5)));
    state = lcgNext(state);
    unchecked((b.mass[i] = 0.5 + lcgUnit(state)));
  }
}

/** Computes the acceleration of every body from all other bodies. */
function accelerate(b: Bodies, n: i32): void {
  const x = b.x, y = b.y, z = b.z, mass = b.mass;
  for (let i = 0; i < n; i++) {
    const xi = unchecked(x[i]), yi = unchecked(y[i]), zi = unchecked(z[i]);
    let axi = 0.0, ayi = 0.0, azi = 0.0;
    for (let j = 0; j < n; j++) {
      if (j != i) {
        const dx = unchecked(x[j]) - xi;
        const dy = unchecked(y[j]) - yi;
        const dz = unchecked(z[j]) - zi;
        const r2 = dx * dx + dy * dy + dz * dz + SOFTENING2;
        const inv = unchecked(mass[j]) / (r2 * Math.sqrt(r2));
        axi += dx * inv;
        ayi += dy * inv;
        azi += dz * inv;
      }
    }
    unchecked((b.ax[i] = axi));
    unchecked((b.ay[i] = ayi));
    unchecked((b.az[i] = azi));
  }
}

/** Symplectic Euler step: v += a * dt, x += v * dt. */
function integrate(b: Bodies, n: i32): void {
  for (let i = 0; i < n; i++) {
    const vx = unchecked(b.vx[i]) + DT * unchecked(b.ax[i]);
    const vy = unchecked(b.vy[i]) + DT * unchecked(b.ay[i]);
    const vz = unchecked(b.vz[i]) + DT * unchecked(b.az[i]);
    unchecked((b.vx[i] = vx));
    unchecked((b.vy[i] = vy));
    unchecked((b.vz[i] = vz));
    unchecked((b.x[i] += DT * vx));
    unchecked((b.y[i] += DT * vy));
    unchecked((b.z[i] += DT * vz));
  }
}

/** Kinetic energy plus a position checksum. */
function checksum(b: Bodies, n: i32): f64 {
  let sum = 0.0;
  for (let i = 0; i < n; i++) {
    const vx = unchecked(b.vx[i]), vy = unchecked(b.vy[i]), vz = unchecked(b.vz[i]);
    sum += 0.5 * unchecked(b.mass[i]) * (vx * vx + vy * vy + vz * vz);
    sum += unchecked(b.x[i]) + 2.0 * unchecked(b.y[i]) + 3.0 * unchecked(b.z[i]);
  }
  return sum;
}

export function run(n: i32, steps: i32): f64 {
  n = param<i32>(n, "n");
  steps = param<i32>(steps, "steps");
  const bodies = new Bodies(
    new StaticArray<f64>(n), new StaticArray<f64>(n), new StaticArray<f64>(n),
    new StaticArray<f64>(n), new StaticArray<f64>(n), new StaticArray<f64>(n),
    new StaticArray<f64>(n), new StaticArray<f64>(n), new StaticArray<f64>(n),
    new StaticArray<f64>(n),
  );
  init(bodies, n);
  for (let s = 0; s < steps; s++) {
    accelerate(bodies, n);
    integrate(bodies, n);
  }
  return checksum(bodies, n);
}
