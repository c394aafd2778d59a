import { type RefObject, useRef, useState } from 'react';
import { type DefaultValues, type FieldValues, useForm, type UseFormReturn } from 'react-hook-form';
import type { ApiError } from './api.ts';
import { useFocusOnRefusal } from './forms.tsx';
import { asApiError } from './hooks.ts';

/** A form of react-hook-form that the service may refuse, and what its screen draws of it. */
export interface ServiceForm<T extends FieldValues> {
  form: UseFormReturn<T>;
  /** The service's refusal of the last submit, for the fields it names. */
  refusal: ApiError | undefined;
  /** For the <form> element: the first field a refusal marks takes the focus. */
  ref: RefObject<HTMLFormElement | null>;
  onSubmit(event?: { preventDefault(): void }): Promise<void>;
  busy: boolean;
}

/**
 * A form whose submit sends its values to the service: react-hook-form holds the values and
 * runs the form's own rules (the notify choice), the service validates the rest, and its refusal
 * is kept, with every value in place, for the fields it names.
 */
export function useServiceForm<T extends FieldValues>(defaultValues: DefaultValues<T>, send: (values: T) => Promise<void>): ServiceForm<T> {
  const form = useForm<T>({ defaultValues });
  const [refusal, setRefusal] = useState<ApiError>();
  const ref = useRef<HTMLFormElement>(null);
  useFocusOnRefusal(ref, refusal);
  const onSubmit = form.handleSubmit(async (values) => {
    setRefusal(undefined);
    try {
      await send(values);
    } catch (caught) {
      setRefusal(asApiError(caught));
    }
  });
  return { form, refusal, ref, onSubmit, busy: form.formState.isSubmitting };
}
