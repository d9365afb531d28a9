/**
 * The bench's workflows: the product's, and the control workflow it measures them against. The
 * bench (and the test run, whose tests use the control too) bundles this module; production
 * workers bundle src/workflows only.
 */
export * from '../../src/workflows';
export { controlNoop, controlTwoStep } from './control-workflow';
