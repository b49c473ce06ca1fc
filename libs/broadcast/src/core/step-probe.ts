/** Internal test hook: called with the name of each startup and recovery step as it begins. */
export type StepProbe = (step: string) => void;
