// A LULESH-spirited hydrodynamics mini-app on a size^3 cube of elements.
//
// Parameters and what they drive:
//   size     mesh edge length: every sweep visits size^3 elements
//   iters    number of time steps
//   regions  number of material regions (contiguous element ranges); the
//            equation of state is evaluated region by region
//   balance  weight of the region-specific EOS term. It only feeds floating
//            point arithmetic and never influences control flow, so a taint
//            analysis must report it as irrelevant for loop trip counts.
//   cost     how many times the EOS is re-evaluated per region and step (as in
//            LULESH, where expensive regions repeat the EOS evaluation)
//
// Cost per step: 2 * size^3 (forces, integration) + size^3 (time step)
// + cost * size^3 (EOS): O(size^3 * iters * cost), plus O(regions * cost)
// region bookkeeping.

import { lcgNext, lcgUnit } from "../lcg";
import { param } from "../taintlens";

const GAMMA: f64 = 1.4;
const V_MIN: f64 = 0.1;
const P_MIN: f64 = 1e-9;
const DT_MAX: f64 = 1e-2;

class Domain {
  numElem: i32;
  e: StaticArray<f64>;    // specific internal energy
  p: StaticArray<f64>;    // pressure
  q: StaticArray<f64>;    // artificial viscosity
  v: StaticArray<f64>;    // relative volume
  delv: StaticArray<f64>; // volume change of the last step
  ss: StaticArray<f64>;   // sound speed
  force: StaticArray<f64>;

  constructor(public size: i32) {
    const numElem = size * size * size;
    this.numElem = numElem;
    this.e = new StaticArray<f64>(numElem);
    this.p = new StaticArray<f64>(numElem);
    this.q = new StaticArray<f64>(numElem);
    this.v = new StaticArray<f64>(numElem);
    this.delv = new StaticArray<f64>(numElem);
    this.ss = new StaticArray<f64>(numElem);
    this.force = new StaticArray<f64>(numElem);
  }
}

/** Sedov-like initial state: a blast of energy in the corner element. */
function initDomain(d: Domain): void {
  const size = d.size;
  let state: u32 = 1;
  for (let z = 0; z < size; z++) {
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        const i = (z * size + y) * size + x;
        state = lcgNext(state);
        const energy = 0.5 + lcgUnit(state) + (i == 0 ? 10.0 : 0.0);
        unchecked((d.e[i] = energy));
        unchecked((d.v[i] = 1.0));
        unchecked((d.p[i] = (GAMMA - 1.0) * energy));
        unchecked((d.q[i] = 0.0));
        unchecked((d.ss[i] = Math.sqrt(GAMMA * (GAMMA - 1.0) * energy)));
      }
    }
  }
}

/** Net pressure force on every element from its six face neighbours. */
function computeForces(d: Domain): void {
  const size = d.size;
  const plane = size * size;
  const p = d.p, q = d.q;
  for (let z = 0; z < size; z++) {
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        const i = (z * size + y) * size + x;
        // Missing neighbours at the boundary mirror the element itself.
        const xm = x > 0 ? i - 1 : i, xp = x < size - 1 ? i + 1 : i;
        const ym = y > 0 ? i - size : i, yp = y < size - 1 ? i + size : i;
        const zm = z > 0 ? i - plane : i, zp = z < size - 1 ? i + plane : i;
        const own = unchecked(p[i]) + unchecked(q[i]);
        let f = 0.0;
        f += unchecked(p[xm]) + unchecked(q[xm]) - own;
        f += unchecked(p[xp]) + unchecked(q[xp]) - own;
        f += unchecked(p[ym]) + unchecked(q[ym]) - own;
        f += unchecked(p[yp]) + unchecked(q[yp]) - own;
        f += unchecked(p[zm]) + unchecked(q[zm]) - own;
        f += unchecked(p[zp]) + unchecked(q[zp]) - own;
        unchecked((d.force[i] = f));
      }
    }
  }
}

/** Moves the elements: volume change from the forces, energy from p dV work. */
function integrate(d: Domain, dt: f64): void {
  for (let i = 0; i < d.numElem; i++) {
    const delv = -0.05 * dt * unchecked(d.force[i]);
    const v = max(unchecked(d.v[i]) + delv, V_MIN);
    const q = 0.5 * Math.abs(delv) * unchecked(d.ss[i]);
    const work = (unchecked(d.p[i]) + q) * delv;
    unchecked((d.delv[i] = delv));
    unchecked((d.v[i] = v));
    unchecked((d.q[i] = q));
    unchecked((d.e[i] = max(unchecked(d.e[i]) - work, P_MIN)));
  }
}

/**
 * Equation of state, region by region. Region r owns the elements
 * [numElem * r / regions, numElem * (r + 1) / regions) and repeats the
 * evaluation `cost` times.
 */
function updateRegions(d: Domain, regions: i32, cost: i32, balanceWeight: f64): void {
  const numElem = d.numElem;
  for (let r = 0; r < regions; r++) {
    const begin = <i32>((<i64>numElem * r) / regions);
    const end = <i32>((<i64>numElem * (r + 1)) / regions);
    const regionStiffness = 1e-3 * <f64>(r + 1) * balanceWeight;
    for (let rep = 0; rep < cost; rep++) {
      for (let i = begin; i < end; i++) {
        const v = unchecked(d.v[i]);
        const compression = 1.0 / v - 1.0;
        const pressure = max((GAMMA - 1.0) * unchecked(d.e[i]) / v + regionStiffness * compression, P_MIN);
        unchecked((d.p[i] = pressure));
        unchecked((d.ss[i] = Math.sqrt(GAMMA * pressure * v)));
      }
    }
  }
}

/** Courant-limited time step for the next cycle. */
function computeTimeStep(d: Domain): f64 {
  let dt = DT_MAX;
  for (let i = 0; i < d.numElem; i++) {
    dt = min(dt, 0.1 / (unchecked(d.ss[i]) + 1e-6));
  }
  return dt;
}

/** Total energy (internal + pressure-volume) as the result checksum. */
function reduce(d: Domain): f64 {
  let sum = 0.0;
  for (let i = 0; i < d.numElem; i++) {
    sum += unchecked(d.e[i]) + unchecked(d.p[i]) * unchecked(d.v[i]);
  }
  return sum;
}

export function run(size: i32, iters: i32, regions: i32, balance: i32, cost: i32): f64 {
  size = param<i32>(size, "size");
  iters = param<i32>(iters, "iters");
  regions = param<i32>(regions, "regions");
  balance = param<i32>(balance, "balance");
  cost = param<i32>(cost, "cost");
  const balanceWeight = 1.0 + 0.25 * <f64>balance;
  const d = new Domain(size);
  initDomain(d);
  let dt = DT_MAX;
  for (let it = 0; it < iters; it++) {
    computeForces(d);
    integrate(d, dt);
    updateRegions(d, regions, cost, balanceWeight);
    dt = computeTimeStep(d);
  }
  return reduce(d);
}
