// How a model's shape is chosen (`model --fit`): a list of its own so the command line can offer
// the choices without loading the modeler.

export type FitMode = 'auto' | 'least-squares' | 'minimax';
export const FIT_MODES: readonly FitMode[] = ['auto', 'least-squares', 'minimax'];
