export interface Probe { missing: string[]; isRoot: boolean; passwordlessSudo: boolean; hasApt: boolean }
export type Decision = { action: 'present' } | { action: 'install'; sudo: boolean; commands: string[][] } | { action: 'refuse'; message: string };
export declare const REQUIRED: Array<{ command: string; pkg: string; broker: boolean }>;
export declare function decide(probe: Probe): Decision;
export declare function probeMachine(env?: NodeJS.ProcessEnv): Probe;
export declare function provision(log?: (line: string) => void, env?: NodeJS.ProcessEnv): boolean;
