export declare const INPUTS: string[];
export declare function needsBuild(root: string): boolean;
