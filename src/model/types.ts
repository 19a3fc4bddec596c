// The shapes of performance models and the data they are fitted to.

/** x^exponent · log2(x)^log for one parameter. */
export interface Factor {
  param: string;
  exponent: number;
  log: number;
}

/** coefficient · Π factors; the constant term has no factors. */
export interface Term {
  coefficient: number;
  factors: Factor[];
  /** A closed form's coefficient as an exact fraction (`23/3`), where it is not an integer. */
  fraction?: string;
}

/** Repetitions aggregate into one value per point by one of these. */
export type Aggregate = 'median' | 'mean' | 'min' | 'max';

/** All repetitions of one call path and metric at one point of the parameter space. */
export interface Point {
  /** One coordinate per parameter, in the order of the series' `params`. */
  coords: number[];
  values: number[];
}

/** Measurements of one call path and metric over the experiment's parameters. */
export interface Series {
  callpath: string;
  metric: string;
  params: string[];
  points: Point[];
}

/** A set of measurements as read from a file. */
export interface Experiment {
  /** The file the measurements came from, for messages. */
  source: string;
  params: string[];
  series: Series[];
}
